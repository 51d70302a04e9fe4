/**
 * `POST /webhooks/supplier`: the supplier's deliveries in. Once a delivery's signature verifies, it is kept before
 * the supplier gets its 2xx, whether or not we can read it: nothing authentic is ever lost.
 *
 * Order of checks, cheapest and least trusting first:
 *   size (413) → the signing scheme's headers present (401, before the body is read) → raw body read with a cap
 *   (413) → the webhook secrets (503 + Retry-After when they cannot be read) → the configured scheme's signature and
 *   timestamp on the raw bytes (401 / 400) — nothing is parsed before this — → nesting limit (400, never stored) →
 *   JSON and the configured mapping (customer file, `supplierEvents`) →
 *   - readable: stored + enqueued in one transaction (200, 202 for an event whose order is not known yet, 200
 *     `duplicate: true` for a redelivery);
 *   - unreadable (not JSON, or the mapping cannot find what an event needs): kept as unreadable with the reason
 *     (202 `readable: false`), the admins told once per shape of body (unreadable.ts);
 *   503 + Retry-After when the database cannot be reached, so the supplier retries.
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
import type { AttentionAlerts } from "../orders/operations/report.ts";
import type { Store } from "../store/db.ts";
import type { DeliveryInfo } from "../store/repositories/unreadable.ts";
import {
  compileEventMapping,
  DEFAULT_EVENT_MAPPING,
  describeShape,
  type EventMapper,
  hashBody,
} from "../supplier/event-mapping.ts";
import { SHIPPING_UPDATED, STATUS_CHANGED } from "../supplier/events.ts";
import { MAX_BODY_BYTES } from "../supplier/schema.ts";
import { InvalidWebhookSecretError, WebhookVerificationError } from "../supplier/webhook-signature.ts";
import {
  STANDARD_WEBHOOKS_SIGNING,
  signatureHeadersOf,
  verifyDelivery,
  type WebhookSigning,
} from "../supplier/webhook-signing.ts";
import { checkDeclaredLength, MAX_NESTING, nestingDepth, readRawBody } from "./body.ts";
import { WebhookRejectedError } from "./errors.ts";
import { createIngester, type IngestResult } from "./ingest.ts";
import { keepUnreadable, postOpenedAlert, type Unreadable } from "./unreadable.ts";

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
  /** How the supplier signs its deliveries (customer file, `supplierEvents.signing`; default Standard Webhooks). */
  signing?: WebhookSigning;
  /** Reads the supplier's body as our event (customer file, `supplierEvents`; default our own format). */
  mapper?: EventMapper;
  /** Posts the admin alert of a new shape of unreadable body (Slack); without it the alert waits for the next pass. */
  alerts?: AttentionAlerts;
  /** Accepted distance between the signed timestamp and our clock (default 300 s, both ways). */
  toleranceSeconds?: number;
  /** Delay before an event is posted, so reordered deliveries are sorted first (default 0). */
  settleMs?: number;
  /** Largest body accepted (default 1 MiB). */
  maxBodyBytes?: number;
  /** Retry-After of a 503 (default 5 s). */
  retryAfterSeconds?: number;
  /** Millisecond clock (default Date.now). */
  now?: () => number;
  newId?: () => string;
  metrics?: Pick<Metrics, "webhookEvents" | "webhookDuplicates" | "webhookRejected">;
  logger?: Logger;
}

function missingHeaders(names: readonly string[]): WebhookRejectedError {
  return new WebhookRejectedError(
    "missing_headers",
    `The request lacks a signature header (${names.join(", ")}): only signed deliveries are accepted.`,
  );
}

/**
 * Text from a body (its keys in the shape, a value quoted in a reason) as the database keeps it: PostgreSQL's text
 * and jsonb take no NUL and no lone surrogate (a body may hold both, escaped), so each is shown as "?". Without this
 * the delivery could not be kept at all, and would be answered 503 forever.
 */
function storable(text: string): string {
  return (
    text
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "?")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is replaced
      .replace(/[\u0000-\u001f\u007f]/g, "?")
  );
}

function storableShape<T extends { fields: ReadonlyArray<{ path: string; type: string }> }>(shape: T): T {
  return { ...shape, fields: shape.fields.map((f) => ({ path: storable(f.path), type: f.type })) };
}

/** Our own event types (a metric label each); a type the mapping left as the supplier named it counts as other. */
const KNOWN_TYPES: ReadonlySet<string> = new Set([STATUS_CHANGED, SHIPPING_UPDATED]);

/**
 * SQLSTATE classes that mean "this value cannot be stored" (data exception, integrity, a program limit such as an
 * index row too large), not "the database is unreachable".
 */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

export function createWebhookHandler(options: WebhookReceiverOptions) {
  const baseLogger = (options.logger ?? pino({ level: "silent" })).child({ component: "webhooks" });
  const now = options.now ?? Date.now;
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const retryAfterSeconds = options.retryAfterSeconds ?? 5;
  const signing = options.signing ?? STANDARD_WEBHOOKS_SIGNING;
  const mapper = options.mapper ?? compileEventMapping(DEFAULT_EVENT_MAPPING);
  const requiredHeaders = signatureHeadersOf(signing);
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

  /** Checks the raw bytes' signature and timestamp under the configured scheme; throws the refusal to answer. */
  function verify(req: IncomingMessage, raw: Buffer, secrets: readonly string[]) {
    try {
      return verifyDelivery({
        signing,
        headers: req.headers,
        rawBody: raw,
        secrets,
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

  /** The stored answer to a write the database refused or could not take. */
  function storeFailure(error: unknown): WebhookRejectedError {
    return new WebhookRejectedError(
      "store_unavailable",
      "The delivery could not be stored right now; retry later.",
      {
        cause: error,
        retryAfterSeconds,
      },
    );
  }

  async function keep(
    res: ServerResponse,
    logger: Logger,
    raw: Buffer,
    delivery: DeliveryInfo,
    json: unknown,
    unreadable: Unreadable,
    bodyHash: string,
  ): Promise<void> {
    const shape =
      json === undefined ? { key: "not-json", fields: [], more: 0 } : storableShape(describeShape(json));
    let kept: Awaited<ReturnType<typeof keepUnreadable>>;
    try {
      kept = await keepUnreadable(
        { store: options.store, ...(options.newId && { newId: options.newId }) },
        {
          ...unreadable,
          reason: storable(unreadable.reason),
          ...(unreadable.field !== undefined && { field: storable(unreadable.field) }),
          ...(unreadable.eventId !== undefined && { eventId: storable(unreadable.eventId) }),
          bodyHash,
          body: raw,
          delivery,
          shape,
          receivedAt: new Date(now()),
        },
      );
    } catch (error) {
      throw storeFailure(error);
    }
    const id = unreadable.eventId ?? null;
    if (kept.duplicate) {
      options.metrics?.webhookDuplicates.inc();
      sendJson(res, 200, { ok: true, id, duplicate: true, readable: false });
      return;
    }
    options.metrics?.webhookEvents.inc({ type: "unreadable" });
    logger.warn(
      { eventId: id, shape: shape.key, field: unreadable.field, reason: unreadable.reason },
      "kept a signed delivery the supplierEvents mapping cannot read",
    );
    sendJson(res, 202, {
      ok: true,
      id,
      duplicate: false,
      readable: false,
      note: `Kept, but not readable as an event: ${unreadable.reason}`,
    });
    const opened = kept.opened;
    if (opened && options.alerts) {
      // After the answer: the supplier does not wait on Slack. A failed post goes out with the unsent alerts.
      postOpenedAlert({ store: options.store, alerts: options.alerts }, opened).catch((error: unknown) =>
        logger.warn(
          { err: error, itemId: opened.id },
          "admin alert about unreadable deliveries not posted yet",
        ),
      );
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, logger: Logger): Promise<void> {
    checkDeclaredLength(req, limit);
    // Unsigned: refused before the body is read (Node discards it), the cheapest refusal there is.
    if (requiredHeaders.some((name) => !req.headers[name])) throw missingHeaders(requiredHeaders);
    const raw = await readRawBody(req, limit);
    const secrets = await loadSecrets();
    let verified: ReturnType<typeof verify>;
    try {
      verified = verify(req, raw, secrets);
    } catch (error) {
      if (!(error instanceof WebhookRejectedError && error.code === "bad_signature")) throw error;
      const fresh = await reloadSecrets(secrets, logger);
      if (!fresh) throw error;
      verified = verify(req, raw, fresh);
      logger.info(
        { deliveryId: verified.deliveryId, secrets: fresh.length },
        "webhook verified with the webhook secrets read again after a mismatch (they were rotated)",
      );
    }
    const delivery: DeliveryInfo = {
      scheme: signing.scheme,
      ...(verified.deliveryId !== undefined && { deliveryId: clip(verified.deliveryId, 200) as string }),
      ...(verified.timestamp !== undefined && { timestamp: verified.timestamp }),
      ...(req.headers["content-type"] && { contentType: clip(req.headers["content-type"], 100) as string }),
    };
    const bodyHash = hashBody(raw);
    const keepUnread = (json: unknown, unreadable: Unreadable) =>
      keep(res, logger, raw, delivery, json, unreadable, bodyHash);

    let json: unknown;
    try {
      json = JSON.parse(raw.toString("utf8"));
    } catch {
      return keepUnread(undefined, { reason: "The body is not valid JSON." });
    }
    // A limit, not a reading problem: a body this deep is refused and never stored.
    if (nestingDepth(json, MAX_NESTING) > MAX_NESTING) {
      throw new WebhookRejectedError(
        "invalid_event",
        `The body nests deeper than ${MAX_NESTING} levels; supplier events are shallow objects.`,
      );
    }
    const mapped = mapper.map(json, { bodyHash });
    if (!mapped.ok) {
      const { reason, field, id } = mapped;
      return keepUnread(json, {
        reason,
        ...(field !== undefined && { field }),
        ...(id !== undefined && { eventId: id }),
      });
    }
    const event = mapped.event;

    let result: IngestResult;
    try {
      result = await ingester.ingest({ event, rawBody: raw, delivery });
    } catch (error) {
      if (isDataError(error)) {
        // Signed, but not storable as an event (e.g. a NUL character in a value): kept as it came.
        return keepUnread(json, {
          eventId: event.id,
          reason: "The event cannot be stored as sent (e.g. a NUL character in a value).",
        });
      }
      throw storeFailure(error);
    }
    const eventLog = {
      eventId: event.id,
      type: event.type,
      correlationId: event.correlationId,
      externalDocumentNumber: event.externalDocumentNumber,
    };
    if (result.duplicate) {
      options.metrics?.webhookDuplicates.inc();
      logger.debug(eventLog, "webhook event already stored (redelivery)");
      sendJson(res, 200, { ok: true, id: event.id, duplicate: true });
      return;
    }
    const known = result.orderId !== null;
    options.metrics?.webhookEvents.inc({ type: KNOWN_TYPES.has(event.type) ? event.type : "other" });
    logger.debug(
      { ...eventLog, orderId: result.orderId },
      known ? "webhook event stored" : "webhook event stored as orphan",
    );
    sendJson(res, known ? 200 : 202, {
      ok: true,
      id: event.id,
      duplicate: false,
      orderKnown: known,
      ...(known ? {} : { note: "No order matches this event yet; it is kept until it appears." }),
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
