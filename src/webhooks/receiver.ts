/**
 * `POST /webhooks/supplier`: the supplier's events in, each stored once before the 2xx.
 *
 * Order of checks, cheapest and least trusting first:
 *   size (413) → content type (415) → signature headers present (401, before the body is read) → raw body
 *   read with a cap (413) → the webhook secrets (503 + Retry-After when they cannot be read) → Standard Webhooks
 *   signature and timestamp on the raw bytes (401 / 400) — nothing is parsed before this — → JSON (400) → event schema (400) → body `id` equals `webhook-id` (400) →
 *   store + enqueue in one transaction (200, 202 for an event whose order is not known yet, 200
 *   `duplicate: true` for a redelivery; 503 + Retry-After when the database cannot be reached, so the supplier
 *   retries).
 * A signature that matches none of the secrets in hand is checked once more against secrets read again
 * (`getSecrets({ refresh: true })`, which the Secrets Manager source rate-limits), so a rotation that retired
 * the old secret does not turn deliveries into 401s until the cache expires.
 * Every answer is JSON saying what happened. A refusal logs and repeats a caller's header only cut short
 * (`clip`): those headers are chosen by whoever calls, credentials or not.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Logger, pino } from "pino";
import { sendError, sendJson } from "../http/json.ts";
import type { Route, RouteContext } from "../http/server.ts";
import { clip } from "../http/untrusted.ts";
import type { Jobs } from "../jobs/jobs.ts";
import type { Metrics } from "../metrics.ts";
import type { Store } from "../store/db.ts";
import { InvalidSupplierEventError } from "../supplier/errors.ts";
import { parseSupplierEvent } from "../supplier/events.ts";
import { MAX_BODY_BYTES } from "../supplier/schema.ts";
import {
  InvalidWebhookSecretError,
  verifyWebhook,
  WebhookVerificationError,
} from "../supplier/webhook-signature.ts";
import { checkDeclaredLength, readRawBody } from "./body.ts";
import { WebhookRejectedError } from "./errors.ts";
import { createIngester, type IngestResult } from "./ingest.ts";

export const WEBHOOK_PATH = "/webhooks/supplier";

/**
 * The webhook secrets in force (`whsec_…`); several during a rotation. From config or Secrets Manager.
 * `refresh: true` comes after a signature mismatch: a source that can re-read its secrets (Secrets Manager)
 * does so, within its own rate limit; others ignore it.
 */
export type GetWebhookSecrets = (request?: {
  refresh?: boolean;
}) => readonly string[] | Promise<readonly string[]>;

export interface WebhookReceiverOptions {
  store: Store;
  jobs: Pick<Jobs, "send" | "sendMany">;
  getSecrets: GetWebhookSecrets;
  /** Accepted distance between `webhook-timestamp` and our clock (default 300 s, both ways). */
  toleranceSeconds?: number;
  /** Delay before an event is posted, so reordered deliveries are sorted first (default 0). */
  settleMs?: number;
  /** Largest body accepted (default 1 MiB). */
  maxBodyBytes?: number;
  /** Retry-After of a 503 (default 5 s). */
  retryAfterSeconds?: number;
  /** Millisecond clock (default Date.now). */
  now?: () => number;
  metrics?: Pick<Metrics, "webhookEvents" | "webhookDuplicates" | "webhookRejected">;
  logger?: Logger;
}

const SIGNATURE_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

function missingHeaders(): WebhookRejectedError {
  return new WebhookRejectedError(
    "missing_headers",
    "The request lacks the webhook-id, webhook-timestamp or webhook-signature header: it was not sent by a Standard Webhooks sender.",
  );
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

function isJsonContentType(header: string | undefined): boolean {
  const type = header?.split(";")[0]?.trim();
  return type !== undefined && JSON_TYPE.test(type);
}

/** SQLSTATE classes that mean "this value cannot be stored" (not "the database is unreachable"). */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^(22|23)[0-9A-Z]{3}$/.test(code);
}

/**
 * Deeper than any real event: a validly signed body nested thousands of levels deep would otherwise overflow
 * the stack when stored, be answered 503, and be redelivered forever.
 */
const MAX_NESTING = 64;

/** Depth of a parsed JSON value, counted iteratively and given up past `limit`. */
function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== "object") continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) stack.push([child, level]);
  }
  return deepest;
}

export function createWebhookHandler(options: WebhookReceiverOptions) {
  const baseLogger = (options.logger ?? pino({ level: "silent" })).child({ component: "webhooks" });
  const now = options.now ?? Date.now;
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const retryAfterSeconds = options.retryAfterSeconds ?? 5;
  const ingester = createIngester({
    store: options.store,
    jobs: options.jobs,
    now,
    ...(options.settleMs !== undefined && { settleMs: options.settleMs }),
  });

  async function loadSecrets(): Promise<readonly string[]> {
    let secrets: readonly string[];
    try {
      secrets = await options.getSecrets();
    } catch (error) {
      throw new WebhookRejectedError(
        "secrets_unavailable",
        "The webhook secret could not be read right now; retry later.",
        { cause: error, retryAfterSeconds },
      );
    }
    if (secrets.length === 0) {
      throw new WebhookRejectedError(
        "secrets_unavailable",
        "No webhook secret is configured here, so no delivery can be verified; retry later.",
        { retryAfterSeconds },
      );
    }
    return secrets;
  }

  /** Checks the raw bytes' signature and timestamp; throws the refusal to answer. */
  function verify(
    req: IncomingMessage,
    raw: Buffer,
    secrets: readonly string[],
  ): { id: string; timestamp: number } {
    try {
      return verifyWebhook({
        headers: req.headers,
        rawBody: raw,
        secrets: [...secrets],
        nowSeconds: Math.floor(now() / 1000),
        toleranceSeconds,
      });
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        throw new WebhookRejectedError(error.code, error.message, { cause: error });
      }
      if (error instanceof InvalidWebhookSecretError) {
        throw new WebhookRejectedError(
          "secrets_unavailable",
          "A configured webhook secret is malformed, so deliveries cannot be verified; retry later.",
          { cause: error, retryAfterSeconds },
        );
      }
      throw error;
    }
  }

  /**
   * The secrets read again after a signature mismatch, or null when that brings nothing new (the same secrets,
   * the source's rate limit, or a failed read): the delivery is then refused as it stands.
   */
  async function reloadSecrets(before: readonly string[], logger: Logger): Promise<readonly string[] | null> {
    let fresh: readonly string[];
    try {
      fresh = await options.getSecrets({ refresh: true });
    } catch (error) {
      logger.warn({ err: error }, "could not read the webhook secrets again after a signature mismatch");
      return null;
    }
    const same = fresh.length === before.length && fresh.every((s) => before.includes(s));
    return same || fresh.length === 0 ? null : fresh;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, logger: Logger): Promise<void> {
    checkDeclaredLength(req, limit);
    if (!isJsonContentType(req.headers["content-type"])) {
      throw new WebhookRejectedError(
        "unsupported_media_type",
        `Send the event as JSON (content-type: application/json), not ${clip(req.headers["content-type"]) ?? "no content-type"}.`,
      );
    }
    // Unsigned: refused before the body is read (Node discards it), the cheapest refusal there is.
    if (SIGNATURE_HEADERS.some((name) => !req.headers[name])) throw missingHeaders();
    const raw = await readRawBody(req, limit);
    const secrets = await loadSecrets();
    let verified: { id: string; timestamp: number };
    try {
      verified = verify(req, raw, secrets);
    } catch (error) {
      if (!(error instanceof WebhookRejectedError && error.code === "bad_signature")) throw error;
      const fresh = await reloadSecrets(secrets, logger);
      if (!fresh) throw error;
      verified = verify(req, raw, fresh);
      logger.info(
        { webhookId: verified.id, secrets: fresh.length },
        "webhook verified with the webhook secrets read again after a mismatch (they were rotated)",
      );
    }

    let json: unknown;
    try {
      json = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new WebhookRejectedError("invalid_json", "The body is not valid JSON.");
    }
    if (nestingDepth(json, MAX_NESTING) > MAX_NESTING) {
      throw new WebhookRejectedError(
        "invalid_event",
        `The body nests deeper than ${MAX_NESTING} levels; supplier events are shallow objects.`,
      );
    }
    let parsed: ReturnType<typeof parseSupplierEvent>;
    try {
      parsed = parseSupplierEvent(json);
    } catch (error) {
      if (error instanceof InvalidSupplierEventError) {
        throw new WebhookRejectedError(
          "invalid_event",
          "The body is not a supplier event: it needs id, type, occurredAt (ISO 8601), correlationId (UUID) " +
            "and data (object). See details.",
          { cause: error, details: error.issues },
        );
      }
      throw error;
    }
    const event = parsed.event;
    if (event.id !== verified.id) {
      throw new WebhookRejectedError(
        "id_mismatch",
        "The body's id differs from the webhook-id header; both must name the same event.",
      );
    }

    let result: IngestResult;
    try {
      result = await ingester.ingest(event, json as object);
    } catch (error) {
      if (isDataError(error)) {
        throw new WebhookRejectedError(
          "invalid_event",
          "The event cannot be stored as sent (e.g. a NUL character).",
          {
            cause: error,
          },
        );
      }
      throw new WebhookRejectedError(
        "store_unavailable",
        "The event could not be stored right now; retry later.",
        {
          cause: error,
          retryAfterSeconds,
        },
      );
    }
    const eventLog = { eventId: event.id, type: event.type, correlationId: event.correlationId };
    if (result.duplicate) {
      options.metrics?.webhookDuplicates.inc();
      logger.debug(eventLog, "webhook event already stored (redelivery)");
      sendJson(res, 200, { ok: true, id: event.id, duplicate: true });
      return;
    }
    options.metrics?.webhookEvents.inc({ type: parsed.kind === "unknown" ? "other" : event.type });
    if (parsed.kind === "unknown") {
      logger.info(
        { ...eventLog, issues: parsed.issues },
        "stored a webhook event of a type or shape we do not know",
      );
    }
    const known = result.orderId !== null;
    logger.debug(
      { ...eventLog, orderId: result.orderId },
      known ? "webhook event stored" : "webhook event stored as orphan",
    );
    sendJson(res, known ? 200 : 202, {
      ok: true,
      id: event.id,
      duplicate: false,
      orderKnown: known,
      ...(known ? {} : { note: "No order has this correlationId yet; the event is kept until it appears." }),
    });
  }

  return async (req: IncomingMessage, res: ServerResponse, context?: RouteContext): Promise<void> => {
    const logger = context?.logger ?? baseLogger;
    try {
      await handle(req, res, logger);
    } catch (error) {
      if (!(error instanceof WebhookRejectedError)) throw error;
      options.metrics?.webhookRejected.inc({ reason: error.code });
      const level = error.httpStatus >= 500 ? "error" : "warn";
      logger[level](
        {
          reason: error.code,
          // Cut: an unauthenticated caller chooses this header, and a log line must cost the same whatever it sent.
          webhookId: clip(req.headers["webhook-id"]),
          err: error.httpStatus >= 500 ? error.cause : undefined,
        },
        `webhook refused: ${error.message}`,
      );
      sendError(res, error.httpStatus, error.code, error.message, {
        ...(error.retryAfterSeconds !== undefined && {
          headers: { "retry-after": String(error.retryAfterSeconds) },
        }),
        ...(error.details && { extra: { details: error.details } }),
      });
    }
  };
}

/** The route to hand to `startHttpServer`. */
export function webhookRoute(options: WebhookReceiverOptions): Route {
  const handler = createWebhookHandler(options);
  return { path: WEBHOOK_PATH, methods: ["POST"], handler };
}
