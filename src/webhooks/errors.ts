/**
 * Why a webhook delivery was refused, as a closed set: each reason has its HTTP status and a message for the
 * sender (the supplier's delivery logs show our body), and is counted by reason in the metrics.
 *
 * Retry semantics for the sender: 4xx (except 408/429) means "do not retry this delivery as is"; 503 means
 * "we could not store it, retry later" — Standard Webhooks senders retry any non-2xx with backoff.
 */

export type WebhookRejectionReason =
  | "payload_too_large"
  | "unsupported_media_type"
  | "missing_headers"
  | "bad_signature"
  | "stale_timestamp"
  | "invalid_json"
  | "invalid_event"
  | "id_mismatch"
  | "store_unavailable"
  | "secrets_unavailable";

const STATUS: Record<WebhookRejectionReason, number> = {
  payload_too_large: 413,
  unsupported_media_type: 415,
  missing_headers: 401,
  bad_signature: 401,
  stale_timestamp: 400,
  invalid_json: 400,
  invalid_event: 400,
  id_mismatch: 400,
  store_unavailable: 503,
  secrets_unavailable: 503,
};

export const WEBHOOK_REJECTION_REASONS = Object.keys(STATUS) as readonly WebhookRejectionReason[];

export class WebhookRejectedError extends Error {
  readonly httpStatus: number;
  override readonly cause: unknown;
  /** Field-level problems of an invalid event (paths and messages, no values). */
  readonly details: string[] | undefined;
  /** For 503: when to come back. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: WebhookRejectionReason,
    message: string,
    options: { cause?: unknown; details?: string[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = "WebhookRejectedError";
    this.httpStatus = STATUS[code];
    this.cause = options.cause;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
