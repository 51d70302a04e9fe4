/**
 * The closed set of errors the supplier contract can produce. One class per outcome, each with a readonly `code`
 * that callers switch on (never on `message`). No error ever holds an API key: messages name the key by its
 * redacted form only, and response excerpts are scrubbed before they are attached.
 */

/** Field path in the supplier's style (`Invoice.Id`, `OrderLines[1].Quantity`) → messages. */
export type ValidationDetails = Record<string, string[]>;

export type SupplierErrorCode =
  | "VALIDATION_FAILED"
  | "LOCAL_VALIDATION_FAILED"
  | "DUPLICATE_ORDER"
  | "INVALID_PAYLOAD"
  | "UNAUTHORIZED"
  | "RATE_LIMITED"
  | "SERVER_ERROR"
  | "SUPPLIER_UNAVAILABLE"
  | "PROTOCOL_ERROR"
  | "KEY_ENVIRONMENT_MISMATCH"
  | "MALFORMED_API_KEY"
  | "INVALID_EVENT";

export interface SupplierErrorOptions {
  cause?: unknown;
  /** The supplier's `meta.correlationId` when the response carried one (useful when talking to support). */
  correlationId?: string | null;
}

export abstract class SupplierError extends Error {
  abstract readonly code: SupplierErrorCode;
  override readonly cause: unknown;
  readonly correlationId: string | null;

  constructor(message: string, options: SupplierErrorOptions = {}) {
    super(message);
    this.name = new.target.name;
    this.cause = options.cause;
    this.correlationId = options.correlationId ?? null;
  }

  /** A plain, log-safe shape (no stack, no cause chain). */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, correlationId: this.correlationId };
  }
}

/** The supplier answered VALIDATION_FAILED; `details` maps supplier field paths to messages. */
export class SupplierValidationError extends SupplierError {
  readonly code = "VALIDATION_FAILED";
  readonly details: ValidationDetails;
  constructor(message: string, details: ValidationDetails, options: SupplierErrorOptions = {}) {
    super(message, options);
    this.details = details;
  }
  override toJSON() {
    return { ...super.toJSON(), details: this.details };
  }
}

/** Our own checks (the same rules the supplier applies) failed; nothing was sent. */
export class LocalValidationError extends SupplierError {
  readonly code = "LOCAL_VALIDATION_FAILED";
  readonly details: ValidationDetails;
  constructor(details: ValidationDetails, message?: string) {
    const fields = Object.keys(details);
    super(
      message ??
        `The order was not sent: ${fields.length} field(s) fail the supplier's rules (${fields.slice(0, 5).join(", ")}${fields.length > 5 ? ", …" : ""}). Fix them and submit again.`,
    );
    this.details = details;
  }
  override toJSON() {
    return { ...super.toJSON(), details: this.details };
  }
}

/** An order with this externalDocumentNumber already exists at the supplier. */
export class DuplicateOrderError extends SupplierError {
  readonly code = "DUPLICATE_ORDER";
  readonly externalDocumentNumber: string;
  constructor(externalDocumentNumber: string, message?: string, options: SupplierErrorOptions = {}) {
    super(
      message ??
        `The supplier already has an order with externalDocumentNumber "${externalDocumentNumber}". Use a new number, or look up the existing order.`,
      options,
    );
    this.externalDocumentNumber = externalDocumentNumber;
  }
  override toJSON() {
    return { ...super.toJSON(), externalDocumentNumber: this.externalDocumentNumber };
  }
}

/** The supplier could not parse the body as JSON (a bug on our side: we always send JSON). */
export class InvalidPayloadError extends SupplierError {
  readonly code = "INVALID_PAYLOAD";
}

/** HTTP 401: the key is missing, wrong, revoked or expired. */
export class UnauthorizedError extends SupplierError {
  readonly code = "UNAUTHORIZED";
  readonly httpStatus = 401;
  constructor(redactedKey: string, options: SupplierErrorOptions = {}) {
    super(
      `The supplier rejected API key ${redactedKey} (HTTP 401). Check that the key is current (keys rotate every 360 days) and belongs to this environment.`,
      options,
    );
  }
}

/** HTTP 429 without an envelope. Retryable; `retryAfterMs` is the server's `Retry-After`, when given. */
export class RateLimitedError extends SupplierError {
  readonly code = "RATE_LIMITED";
  readonly httpStatus = 429;
  readonly retryAfterMs: number | null;
  constructor(retryAfterMs: number | null, options: SupplierErrorOptions = {}) {
    super(
      `The supplier is rate limiting us (HTTP 429${retryAfterMs === null ? "" : `, retry after ${Math.ceil(retryAfterMs / 1000)} s`}).`,
      options,
    );
    this.retryAfterMs = retryAfterMs;
  }
  override toJSON() {
    return { ...super.toJSON(), retryAfterMs: this.retryAfterMs };
  }
}

/** INTERNAL_SERVER_ERROR in the envelope, or a 5xx without one (e.g. a proxy's HTML 502). Retryable. */
export class SupplierServerError extends SupplierError {
  readonly code = "SERVER_ERROR";
  readonly httpStatus: number;
  readonly retryAfterMs: number | null;
  constructor(
    httpStatus: number,
    message: string,
    options: SupplierErrorOptions & { retryAfterMs?: number | null } = {},
  ) {
    super(message, options);
    this.httpStatus = httpStatus;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
  override toJSON() {
    return { ...super.toJSON(), httpStatus: this.httpStatus };
  }
}

export type UnavailableReason = "network" | "timeout" | "retries_exhausted" | "retry_after_too_long";

/**
 * The supplier could not be reached or kept failing after our retries. `cause` is the last attempt's error.
 * `retryAfterMs` is set when the supplier asked us to wait longer than we are willing to block: a durable job can
 * reschedule itself with it.
 */
export class SupplierUnavailableError extends SupplierError {
  readonly code = "SUPPLIER_UNAVAILABLE";
  readonly reason: UnavailableReason;
  readonly attempts: number;
  readonly retryAfterMs: number | null;
  constructor(
    message: string,
    options: SupplierErrorOptions & {
      reason: UnavailableReason;
      attempts: number;
      retryAfterMs?: number | null;
    },
  ) {
    super(message, options);
    this.reason = options.reason;
    this.attempts = options.attempts;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
  override toJSON() {
    return {
      ...super.toJSON(),
      reason: this.reason,
      attempts: this.attempts,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

/**
 * The response was not what the contract promises (not the envelope, an unknown error code on a 4xx, a success
 * body without a correlationId...). Not retried: a 2xx we cannot read may still have placed the order.
 */
export class ProtocolError extends SupplierError {
  readonly code = "PROTOCOL_ERROR";
  readonly httpStatus: number | null;
  /** At most 200 characters of the body, scrubbed of the API key. */
  readonly bodyExcerpt: string | null;
  constructor(
    message: string,
    options: SupplierErrorOptions & { httpStatus?: number | null; bodyExcerpt?: string | null } = {},
  ) {
    super(message, options);
    this.httpStatus = options.httpStatus ?? null;
    this.bodyExcerpt = options.bodyExcerpt ?? null;
  }
  override toJSON() {
    return { ...super.toJSON(), httpStatus: this.httpStatus, bodyExcerpt: this.bodyExcerpt };
  }
}

/** A live key aimed at a test base URL, or a test key at live. Raised before any request. */
export class KeyEnvironmentMismatchError extends SupplierError {
  readonly code = "KEY_ENVIRONMENT_MISMATCH";
  readonly keyEnvironment: "live" | "test";
  readonly targetEnvironment: "live" | "test";
  constructor(redactedKey: string, keyEnvironment: "live" | "test", targetEnvironment: "live" | "test") {
    super(
      `Refusing to send a ${keyEnvironment} API key (${redactedKey}) to the ${targetEnvironment} supplier environment. Use a ${targetEnvironment} key, or point the base URL and environment at ${keyEnvironment}.`,
    );
    this.keyEnvironment = keyEnvironment;
    this.targetEnvironment = targetEnvironment;
  }
}

/** The API key does not have the shape `<svc>_live_<32 hex>` / `<svc>_test_<32 hex>`. Never echoes the value. */
export class MalformedApiKeyError extends SupplierError {
  readonly code = "MALFORMED_API_KEY";
}

/** A webhook payload that is not a supplier event at all (missing id, type, occurredAt, correlationId or data). */
export class InvalidSupplierEventError extends SupplierError {
  readonly code = "INVALID_EVENT";
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`The webhook payload is not a supplier event: ${issues.join("; ")}`);
    this.issues = issues;
  }
  override toJSON() {
    return { ...super.toJSON(), issues: this.issues };
  }
}

export function isSupplierError(value: unknown): value is SupplierError {
  return value instanceof SupplierError;
}
