/**
 * The one place that turns a create-order HTTP response into an outcome. The spec fixes the envelope but not the
 * HTTP status of each error code, so the envelope's `error.code` decides, whatever the status; a 401 is always an
 * authentication failure (its body is unspecified and may be empty or not JSON); a 5xx without an envelope (a
 * proxy's HTML 502) is a server error; anything else we cannot read is a protocol error.
 */
import {
  DuplicateOrderError,
  InvalidPayloadError,
  ProtocolError,
  RateLimitedError,
  type SupplierError,
  SupplierServerError,
  SupplierValidationError,
  UnauthorizedError,
  type ValidationDetails,
} from "./errors.ts";
import { redactApiKey, scrubApiKey } from "./keys.ts";
import { parseRetryAfter } from "./retry.ts";
import { envelopeSchema } from "./schema.ts";

export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface InterpretContext {
  /** The number we sent: named by DuplicateOrderError. */
  externalDocumentNumber: string;
  /**
   * Used only to name the key in redacted form and to scrub it out of everything the supplier sent back (error
   * messages, validation details, excerpts) before it is put in an error.
   */
  apiKey?: string;
  /** For `Retry-After` given as an HTTP date. */
  nowMs?: number;
}

export type Outcome =
  | { ok: true; correlationId: string; timestamp: string; httpStatus: number }
  | { ok: false; error: SupplierError };

const EXCERPT_LENGTH = 200;

/**
 * Any text the supplier sent back, with the call's key replaced by its redacted form: a supplier (or a proxy in
 * front of it) may echo our request headers in a message, a details entry or a page.
 */
function scrub(text: string, apiKey: string | undefined): string {
  return apiKey ? scrubApiKey(text, apiKey) : text;
}

function excerpt(bodyText: string, apiKey: string | undefined): string | null {
  if (bodyText.length === 0) return null;
  const scrubbed = scrub(bodyText, apiKey);
  return scrubbed.length > EXCERPT_LENGTH ? `${scrubbed.slice(0, EXCERPT_LENGTH)}…` : scrubbed;
}

/**
 * The supplier's details map, field paths and messages scrubbed. Two paths that differ only by the key merge.
 * Built with `Object.fromEntries`, so a `__proto__` path stays a plain entry.
 */
function scrubDetails(details: ValidationDetails, apiKey: string | undefined): ValidationDetails {
  const scrubbed = new Map<string, string[]>();
  for (const [path, messages] of Object.entries(details)) {
    const key = scrub(path, apiKey);
    const list = scrubbed.get(key) ?? [];
    for (const message of messages) list.push(scrub(message, apiKey));
    scrubbed.set(key, list);
  }
  return Object.fromEntries(scrubbed);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Only failures need it: a placed order (the common answer) skips the header. */
function retryAfterOf(headers: ResponseHeaders, context: InterpretContext): number | null {
  return parseRetryAfter(header(headers, "retry-after"), context.nowMs ?? Date.now());
}

export function interpretResponse(
  status: number,
  headers: ResponseHeaders,
  bodyText: string,
  context: InterpretContext,
): Outcome {
  const envelope = envelopeSchema.safeParse(parseJson(bodyText));
  const correlationId = envelope.success ? envelope.data.meta.correlationId : null;

  if (status === 401) {
    return { ok: false, error: new UnauthorizedError(redactApiKey(context.apiKey), { correlationId }) };
  }

  if (envelope.success) {
    const body = envelope.data;
    if (body.success) {
      if (status >= 200 && status < 300) {
        return {
          ok: true,
          correlationId: body.data.correlationId,
          timestamp: body.meta.timestamp,
          httpStatus: status,
        };
      }
      return {
        ok: false,
        error: new ProtocolError(
          `The supplier answered HTTP ${status} with a success envelope; expected a 2xx.`,
          {
            httpStatus: status,
            correlationId,
            bodyExcerpt: excerpt(bodyText, context.apiKey),
          },
        ),
      };
    }
    const { code, details } = body.error;
    const message = scrub(body.error.message, context.apiKey);
    switch (code) {
      case "VALIDATION_FAILED":
        return {
          ok: false,
          error: new SupplierValidationError(
            `The supplier rejected the order: ${message} Fix the listed fields and submit again.`,
            details ? scrubDetails(details, context.apiKey) : {},
            { correlationId },
          ),
        };
      case "DUPLICATE_ORDER":
        return {
          ok: false,
          error: new DuplicateOrderError(context.externalDocumentNumber, undefined, { correlationId }),
        };
      case "INVALID_PAYLOAD":
        return {
          ok: false,
          error: new InvalidPayloadError(
            `The supplier could not parse the request body (${message}). This is a bug in Order Desk: report it with correlation id ${correlationId}.`,
            { correlationId },
          ),
        };
      case "INTERNAL_SERVER_ERROR":
        return {
          ok: false,
          error: new SupplierServerError(
            status,
            `The supplier failed unexpectedly (HTTP ${status}): ${message}`,
            {
              correlationId,
              retryAfterMs: retryAfterOf(headers, context),
            },
          ),
        };
    }
  }

  if (status === 429) return { ok: false, error: new RateLimitedError(retryAfterOf(headers, context)) };
  if (status >= 500) {
    return {
      ok: false,
      error: new SupplierServerError(
        status,
        `The supplier (or a proxy in front of it) answered HTTP ${status} without the API's envelope.`,
        { retryAfterMs: retryAfterOf(headers, context) },
      ),
    };
  }
  const hint =
    status === 404 || status === 405
      ? " Check the supplier base URL: it should be the API root, without /orders/create."
      : status >= 200 && status < 300
        ? " The order may or may not have been placed: check with the supplier before placing it again."
        : "";
  return {
    ok: false,
    error: new ProtocolError(
      `The supplier answered HTTP ${status} with a body that is not the API's envelope.${hint}`,
      {
        httpStatus: status,
        bodyExcerpt: excerpt(bodyText, context.apiKey),
      },
    ),
  };
}
