/**
 * Why an order failed (or why its last placement attempt did): one variant per way it happens, told apart by
 * `reason`. `kind` says what the order's message makes of it — `rejected` (the supplier, or our copy of its
 * rules, refused the request: fix and resubmit), `failed` (given up for good), `retrying` (an attempt failed,
 * the queue tries again) — and is what rows written before `reason` existed carry.
 *
 * Parsed once, where the row is read (`parseOrderFailure`, called by the store's row mapping): rows written by
 * earlier versions (no `reason`, ad-hoc keys) map to a variant by their `kind` and `code`, and a value that
 * cannot be read at all becomes `unexpected` instead of failing the read.
 */
import { z } from "zod";

const detailsSchema = z.record(z.string(), z.array(z.string()));
const message = z.string().optional();

/** The supplier (or our copy of its rules) refused the request: code, message and per-field details. */
const rejectedSchema = z.object({
  kind: z.literal("rejected"),
  reason: z.literal("rejected"),
  /** VALIDATION_FAILED (ours or the supplier's), INVALID_PAYLOAD… */
  code: z.string(),
  message,
  /** Supplier field paths → messages. */
  details: detailsSchema.optional(),
});

/** The supplier already has an order with this document number (DUPLICATE_ORDER): resubmit with a new one. */
const duplicateNumberSchema = z.object({
  kind: z.literal("rejected"),
  reason: z.literal("duplicate_number"),
  code: z.literal("DUPLICATE_ORDER"),
  message,
});

/** An attempt failed in a way that may pass (supplier unreachable, rate limited, key unreadable): retrying. */
const retryingSchema = z.object({
  kind: z.literal("retrying"),
  reason: z.literal("retrying"),
  code: z.string(),
  message,
  /** The attempt may have reached the supplier (a timeout, a 5xx): a later DUPLICATE_ORDER means "ours". */
  maybePlaced: z.boolean(),
  attempt: z.number().optional(),
});

/** The supplier stayed unreachable until the queue's last attempt. */
const retriesExhaustedSchema = z.object({
  kind: z.literal("failed"),
  reason: z.literal("retries_exhausted"),
  code: z.string(),
  message,
  maybePlaced: z.boolean(),
  retriesExhausted: z.literal(true),
});

/** The supplier answered 401 to every key we have (the admins are alerted). */
const keyRefusedSchema = z.object({
  kind: z.literal("failed"),
  reason: z.literal("key_refused"),
  code: z.literal("UNAUTHORIZED"),
  message,
  maybePlaced: z.literal(true).optional(),
});

/** The API key could not be used: not found, access denied, malformed, or for the other environment. */
const keyUnavailableSchema = z.object({
  kind: z.literal("failed"),
  reason: z.literal("key_unavailable"),
  code: z.string(),
  message,
});

/** The order's profile is gone from the configuration, or is for another supplier environment. */
const profileMisconfiguredSchema = z.object({
  kind: z.literal("failed"),
  reason: z.literal("profile_misconfigured"),
  code: z.enum(["UNKNOWN_PROFILE", "ENVIRONMENT_MISMATCH"]),
  message,
});

/** A workflow order whose step deadline passed before the supplier could be reached. */
const workflowDeadlineSchema = z.object({
  kind: z.literal("failed"),
  reason: z.literal("workflow_deadline"),
  code: z.literal("WORKFLOW_DEADLINE"),
  message,
  maybePlaced: z.boolean(),
  retriedForMs: z.number(),
  deadlineAt: z.string(),
});

/** Anything else that cannot succeed by retrying (an unreadable answer: PROTOCOL_ERROR, a bad request…). */
const unexpectedSchema = z.object({
  kind: z.literal("failed"),
  reason: z.literal("unexpected"),
  code: z.string().optional(),
  message,
  maybePlaced: z.boolean().optional(),
});

export const orderFailureSchema = z.discriminatedUnion("reason", [
  rejectedSchema,
  duplicateNumberSchema,
  retryingSchema,
  retriesExhaustedSchema,
  keyRefusedSchema,
  keyUnavailableSchema,
  profileMisconfiguredSchema,
  workflowDeadlineSchema,
  unexpectedSchema,
]);

export type OrderFailure = z.infer<typeof orderFailureSchema>;
export type OrderFailureReason = OrderFailure["reason"];
export type RejectedFailure = Extract<OrderFailure, { kind: "rejected" }>;
export type RetryingFailure = Extract<OrderFailure, { kind: "retrying" }>;
export type FinalFailure = Extract<OrderFailure, { kind: "failed" }>;

/** Codes of a key that cannot be used (supplier/errors.ts and secrets/errors.ts), for rows without `reason`. */
const KEY_CODES = new Set(["KEY_ENVIRONMENT_MISMATCH", "MALFORMED_API_KEY"]);

/** The `reason` of a row written before it was stored, from its `kind` and `code` (as that version wrote them). */
function legacyReason(value: Record<string, unknown>): OrderFailureReason {
  const code = value.code;
  if (value.kind === "rejected") return code === "DUPLICATE_ORDER" ? "duplicate_number" : "rejected";
  if (value.kind === "retrying") return "retrying";
  if (value.retriesExhausted === true) return "retries_exhausted";
  if (code === "WORKFLOW_DEADLINE") return "workflow_deadline";
  if (code === "UNAUTHORIZED") return "key_refused";
  if (code === "UNKNOWN_PROFILE" || code === "ENVIRONMENT_MISMATCH") return "profile_misconfigured";
  if (typeof code === "string" && (KEY_CODES.has(code) || code.startsWith("SECRET")))
    return "key_unavailable";
  return "unexpected";
}

/** Fills what an earlier version left out (a `maybePlaced` it wrote only when true, a deadline's numbers). */
function upgraded(value: Record<string, unknown>): Record<string, unknown> {
  const reason = legacyReason(value);
  const out: Record<string, unknown> = { ...value, reason };
  if (reason === "retrying" || reason === "retries_exhausted" || reason === "workflow_deadline") {
    out.maybePlaced = value.maybePlaced === true;
  }
  if (reason === "key_refused" && value.maybePlaced !== true) delete out.maybePlaced;
  if (reason === "retrying" && typeof out.code !== "string") out.code = "UNKNOWN";
  if (reason === "retries_exhausted" && typeof out.code !== "string") out.code = "UNKNOWN";
  if (reason === "workflow_deadline") {
    if (typeof value.retriedForMs !== "number") out.retriedForMs = 0;
    if (typeof value.deadlineAt !== "string") out.deadlineAt = "";
  }
  return out;
}

/**
 * The stored `last_error` as an `OrderFailure`; null when there is none. Never throws: an unreadable value is
 * kept as `unexpected` with the message it had, so one odd row cannot hide an order.
 */
export function parseOrderFailure(stored: unknown): OrderFailure | null {
  if (stored === null || stored === undefined) return null;
  const current = orderFailureSchema.safeParse(stored);
  if (current.success) return current.data;
  if (typeof stored === "object" && !Array.isArray(stored)) {
    const legacy = orderFailureSchema.safeParse(upgraded(stored as Record<string, unknown>));
    if (legacy.success) return legacy.data;
  }
  const {
    kind,
    code,
    message: text,
  } = (stored ?? {}) as { kind?: unknown; code?: unknown; message?: unknown };
  const said = typeof text === "string" ? { message: text } : {};
  // A refusal whose details we cannot read is still a refusal: the agent fixes and resubmits.
  if (kind === "rejected") {
    return { kind, reason: "rejected", code: typeof code === "string" ? code : "UNKNOWN", ...said };
  }
  return { kind: "failed", reason: "unexpected", ...said };
}

/** True when an attempt may have reached the supplier: a DUPLICATE_ORDER later means the order is ours. */
export function mayHaveBeenPlaced(failure: OrderFailure | null): boolean {
  return failure !== null && "maybePlaced" in failure && failure.maybePlaced === true;
}

/** True when the failure proves the supplier never created the order (refused, but not as a duplicate). */
export function neverReachedSupplier(failure: OrderFailure | null): boolean {
  return failure?.reason === "rejected";
}
