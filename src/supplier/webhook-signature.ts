/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the sender signs `${id}.${timestamp}.${body}`
 * with HMAC-SHA256 under a `whsec_<base64>` secret and sends `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64>` (several space-separated signatures while a secret rotates). The receiver
 * accepts any of its current secrets and rejects timestamps outside a tolerance window, which bounds replays.
 *
 * Used by the sandbox (to sign) and by our webhook receiver (to verify). Interoperates with the reference
 * `standardwebhooks` package. No error ever carries a secret or a signature.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SECRET_PREFIX = "whsec_";
export const DEFAULT_TOLERANCE_SECONDS = 300;
const SIGNATURE_VERSION = "v1";
/** HMAC-SHA256 output length: a signature decoding to anything else cannot match. */
const SIGNATURE_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const TIMESTAMP = /^[0-9]{1,12}$/;

/** A type (not an interface) so it is assignable to header records. */
export type WebhookSignatureHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

export type WebhookVerificationErrorCode = "missing_headers" | "bad_signature" | "stale_timestamp";

/** The request is not a genuine, fresh delivery. The receiver answers it with a 4xx and stores nothing. */
export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;
  override readonly cause: unknown;
  constructor(code: WebhookVerificationErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = "WebhookVerificationError";
    this.code = code;
    this.cause = options.cause;
  }
}

/** A configured secret is not `whsec_<base64>`: a configuration problem, raised before anything is signed. */
export class InvalidWebhookSecretError extends Error {
  readonly code = "invalid_webhook_secret";
  constructor(message: string) {
    super(message);
    this.name = "InvalidWebhookSecretError";
  }
}

/** Decodes `whsec_<base64>` (the prefix is optional, as in the reference implementation) to the HMAC key. */
export function decodeWebhookSecret(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded.length === 0 || encoded.length % 4 !== 0 || !BASE64.test(encoded)) {
    throw new InvalidWebhookSecretError(
      `The webhook secret (${secret.length} characters) is not "${SECRET_PREFIX}" followed by base64. Copy it again from where it was issued, or create one with generateWebhookSecret().`,
    );
  }
  return Buffer.from(encoded, "base64");
}

/** A new secret with 32 random bytes, in the `whsec_<base64>` form. */
export function generateWebhookSecret(bytes: (size: number) => Buffer = randomBytes): string {
  return `${SECRET_PREFIX}${bytes(32).toString("base64")}`;
}

function hmac(key: Buffer, id: string, timestamp: string, body: Buffer | string): Buffer {
  // Hashing the raw bytes (not a re-decoded string) keeps the signature exact for any body.
  return createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
}

export interface SignWebhookInput {
  /** The message id, stable across retries of the same event (the receiver deduplicates on it). */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The exact body sent. */
  body: string | Buffer;
  /** `whsec_<base64>`. Several while rotating: each signs, the header carries every signature. */
  secret: string | readonly string[];
}

export function signWebhook(input: SignWebhookInput): WebhookSignatureHeaders {
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    throw new TypeError("timestamp must be whole Unix seconds");
  }
  const timestamp = String(input.timestamp);
  const secrets = typeof input.secret === "string" ? [input.secret] : input.secret;
  if (secrets.length === 0) throw new InvalidWebhookSecretError("At least one webhook secret is required.");
  const signature = secrets
    .map(
      (secret) =>
        `${SIGNATURE_VERSION},${hmac(decodeWebhookSecret(secret), input.id, timestamp, input.body).toString("base64")}`,
    )
    .join(" ");
  return { "webhook-id": input.id, "webhook-timestamp": timestamp, "webhook-signature": signature };
}

/** Node's `IncomingHttpHeaders` (lower-case names), a plain record, or a fetch `Headers`. */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    if (key !== undefined) value = record[key];
  }
  return Array.isArray(value) ? value[0] : (value as string | undefined);
}

export interface VerifyWebhookInput {
  headers: HeaderSource;
  /** The body exactly as received, before any JSON parsing. */
  rawBody: Buffer | string;
  /** Every secret currently accepted (the new and the old one while rotating). */
  secrets: readonly string[];
  /** Now, in Unix seconds (injected). */
  nowSeconds: number;
  toleranceSeconds?: number;
}

export interface VerifiedWebhook {
  id: string;
  /** Unix seconds from `webhook-timestamp`. */
  timestamp: number;
}

/** Returns the message id and timestamp of a genuine, fresh delivery; throws `WebhookVerificationError` otherwise. */
export function verifyWebhook(input: VerifyWebhookInput): VerifiedWebhook {
  const id = readHeader(input.headers, "webhook-id");
  const timestampText = readHeader(input.headers, "webhook-timestamp");
  const signatureHeader = readHeader(input.headers, "webhook-signature");
  if (!id || !timestampText || !signatureHeader) {
    throw new WebhookVerificationError(
      "missing_headers",
      "The request lacks the webhook-id, webhook-timestamp or webhook-signature header: it was not sent by a Standard Webhooks sender.",
    );
  }
  if (!TIMESTAMP.test(timestampText)) {
    throw new WebhookVerificationError(
      "missing_headers",
      "The webhook-timestamp header is not whole Unix seconds.",
    );
  }
  const timestamp = Number(timestampText);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(input.nowSeconds - timestamp) > tolerance) {
    throw new WebhookVerificationError(
      "stale_timestamp",
      `The webhook timestamp is ${Math.round(input.nowSeconds - timestamp)} s away from now (tolerance ${tolerance} s): a replay, or a clock out of sync on one side.`,
    );
  }
  if (input.secrets.length === 0) {
    throw new InvalidWebhookSecretError("At least one webhook secret is required to verify deliveries.");
  }

  const offered: Buffer[] = [];
  for (const part of signatureHeader.split(" ")) {
    const comma = part.indexOf(",");
    if (comma < 0 || part.slice(0, comma) !== SIGNATURE_VERSION) continue;
    const decoded = Buffer.from(part.slice(comma + 1), "base64");
    if (decoded.length === SIGNATURE_BYTES) offered.push(decoded);
  }
  for (const secret of input.secrets) {
    const expected = hmac(decodeWebhookSecret(secret), id, timestampText, input.rawBody);
    for (const candidate of offered) {
      if (timingSafeEqual(candidate, expected)) return { id, timestamp };
    }
  }
  throw new WebhookVerificationError(
    "bad_signature",
    "No webhook signature matches a configured secret: the body was altered, or the sender uses another secret (check the webhook secret on both sides).",
  );
}
