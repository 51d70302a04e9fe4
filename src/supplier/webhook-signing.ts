/**
 * How the supplier signs its webhook deliveries, as configuration (`supplierEvents.signing` in the customer
 * file): Standard Webhooks (ours, the default; webhook-signature.ts) or an HMAC-SHA256 in a named header
 * (hmac-signature.ts). The receiver verifies with `verifyDelivery`, the sandbox and tests sign with
 * `signDelivery`, and start-up checks the configured secrets with `webhookSecretProblems`. Pure: no I/O.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import {
  parseSignedContent,
  requiredHmacHeaders,
  signHmacDelivery,
  verifyHmacDelivery,
} from "./hmac-signature.ts";
import {
  DEFAULT_TOLERANCE_SECONDS,
  decodeWebhookSecret,
  generateWebhookSecret,
  type HeaderSource,
  InvalidWebhookSecretError,
  SECRET_PREFIX,
  signWebhook,
  verifyWebhook,
} from "./webhook-signature.ts";

export { InvalidWebhookSecretError, WebhookVerificationError } from "./webhook-signature.ts";

/** RFC 9110 `token`: what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const headerName = (key: string, whenMissing = `${key} must be a header name (text), e.g. X-Signature.`) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? whenMissing : `${key} must be a header name (text), e.g. X-Signature.`,
    })
    .min(1, `${key} must not be empty.`)
    .max(100, `${key} is over 100 characters: give the header's name, not its value.`)
    .regex(
      HEADER_NAME,
      `${key} must be an HTTP header name: letters, digits and !#$%&'*+-.^_\`|~ only (no spaces or colons), e.g. X-Signature.`,
    );

const standardWebhooksSchema = z.strictObject(
  { scheme: z.literal("standard-webhooks").default("standard-webhooks") },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `${issue.keys.map((k) => `"${k}"`).join(", ")} only appl${issue.keys.length > 1 ? "y" : "ies"} to scheme: hmac-sha256; Standard Webhooks (the default scheme) takes no other keys.`
        : undefined,
  },
);

const hmacSchema = z
  .strictObject(
    {
      scheme: z.literal("hmac-sha256"),
      signatureHeader: headerName(
        "signatureHeader",
        "signatureHeader is required for hmac-sha256: the header the supplier puts the signature in, e.g. X-Signature.",
      ),
      encoding: z.enum(["hex", "base64"], { error: 'encoding must be "hex" or "base64".' }).default("hex"),
      prefix: z
        .string({ error: "prefix must be text, e.g. sha256=." })
        .min(1, "prefix must not be empty: leave it out when the signature has none.")
        .max(32, "prefix is over 32 characters.")
        .regex(/^[\x21-\x7e]+$/, "prefix must be printable ASCII without spaces, e.g. sha256=.")
        .optional(),
      timestampHeader: headerName("timestampHeader").optional(),
      signedContent: z
        .string({ error: 'signedContent must be text, e.g. "{timestamp}.{body}".' })
        .max(200, "signedContent is over 200 characters.")
        .default("{body}"),
      idHeader: headerName("idHeader").optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `Unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}: hmac-sha256 takes scheme, signatureHeader, encoding, prefix, timestampHeader, signedContent and idHeader.`
          : undefined,
    },
  )
  .superRefine((value, ctx) => {
    const problem = (path: string, message: string) =>
      ctx.addIssue({ code: "custom", path: [path], message });
    const { parts, unknown } = parseSignedContent(value.signedContent);
    const count = (name: string) =>
      parts.filter((part) => "placeholder" in part && part.placeholder === name).length;
    if (unknown.length > 0) {
      problem(
        "signedContent",
        `signedContent has unknown placeholder(s) ${unknown.map((n) => `{${n}}`).join(", ")}: use {body}, {timestamp} and {id}.`,
      );
    }
    if (count("body") !== 1) {
      problem(
        "signedContent",
        'signedContent must contain {body} exactly once, e.g. "{body}" or "{timestamp}.{body}".',
      );
    }
    if (count("timestamp") > 0 && value.timestampHeader === undefined) {
      problem(
        "signedContent",
        "signedContent uses {timestamp}: set timestampHeader to the header that carries it.",
      );
    }
    if (count("id") > 0 && value.idHeader === undefined) {
      problem(
        "signedContent",
        "signedContent uses {id}: set idHeader to the header that carries the delivery id.",
      );
    }
    const seen = new Map<string, string>();
    for (const key of ["signatureHeader", "timestampHeader", "idHeader"] as const) {
      const name = value[key]?.toLowerCase();
      if (name === undefined) continue;
      const other = seen.get(name);
      if (other !== undefined) problem(key, `${key} and ${other} name the same header: each needs its own.`);
      seen.set(name, key);
    }
  });

export const webhookSigningSchema = z
  .discriminatedUnion("scheme", [standardWebhooksSchema, hmacSchema], {
    error: (issue) =>
      issue.code === "invalid_union"
        ? 'scheme must be "standard-webhooks" (the default) or "hmac-sha256".'
        : undefined,
  })
  .default({ scheme: "standard-webhooks" });

/** As written in the customer file. */
export type WebhookSigningInput = z.input<typeof webhookSigningSchema>;
/** As validated, defaults applied. */
export type WebhookSigning = z.output<typeof webhookSigningSchema>;
export type HmacWebhookSigning = Extract<WebhookSigning, { scheme: "hmac-sha256" }>;

export const STANDARD_WEBHOOKS_SIGNING: WebhookSigning = { scheme: "standard-webhooks" };
const STANDARD_WEBHOOKS_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"];

/** The headers a delivery must carry before its body is worth reading, lower-cased as Node presents them. */
export function signatureHeadersOf(signing: WebhookSigning): string[] {
  return signing.scheme === "standard-webhooks"
    ? [...STANDARD_WEBHOOKS_HEADERS]
    : requiredHmacHeaders(signing);
}

export interface VerifyDeliveryInput {
  signing: WebhookSigning;
  headers: HeaderSource;
  /** The body exactly as received, before any parsing. */
  rawBody: Buffer | string;
  /** Every secret currently accepted (the new and the old one while rotating). */
  secrets: readonly string[];
  /** Now, in Unix seconds (injected). */
  nowSeconds: number;
  toleranceSeconds?: number;
}

export interface VerifiedDelivery {
  /**
   * The delivery's id header (`webhook-id`, or the configured `idHeader`) when there is one. Covered by the
   * signature with Standard Webhooks and when `signedContent` uses `{id}`; otherwise only informative (deduplicate
   * on the event's id in the signed body).
   */
  deliveryId?: string;
  /** Unix seconds of the timestamp header, when the scheme has one. */
  timestamp?: number;
}

/**
 * Returns what the signature vouches for of a genuine, fresh delivery. Throws `WebhookVerificationError`
 * (`missing_headers`, `bad_signature`, `stale_timestamp`) otherwise, or `InvalidWebhookSecretError` when the
 * configured secrets cannot verify anything.
 */
export function verifyDelivery(input: VerifyDeliveryInput): VerifiedDelivery {
  const toleranceSeconds = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (input.signing.scheme === "standard-webhooks") {
    const { id, timestamp } = verifyWebhook({ ...input, toleranceSeconds });
    return { deliveryId: id, timestamp };
  }
  return verifyHmacDelivery({ ...input, config: input.signing, toleranceSeconds });
}

export interface SignDeliveryInput {
  /** The delivery id, stable across retries of the same event. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The exact body sent. */
  body: string | Buffer;
  /** Several while rotating: each signs, the signature header carries every signature. */
  secret: string | readonly string[];
}

/** The signing headers of one delivery attempt (the sandbox's, and our tests' own signer). */
export function signDelivery(signing: WebhookSigning, input: SignDeliveryInput): Record<string, string> {
  if (signing.scheme === "standard-webhooks") return signWebhook(input);
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    throw new TypeError("timestamp must be whole Unix seconds");
  }
  const secrets = typeof input.secret === "string" ? [input.secret] : input.secret;
  return signHmacDelivery(signing, { ...input, secrets });
}

const STANDARD_SECRET = /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/;

/** Shortest HMAC secret accepted: shorter ones are guessable offline from one signed delivery. */
export const MIN_HMAC_SECRET_LENGTH = 16;

/**
 * What is wrong with the configured secrets for this scheme, one message per problem, each naming the secret by
 * position and length only (never its value). Empty when they can verify deliveries.
 */
export function webhookSecretProblems(signing: WebhookSigning, secrets: readonly string[]): string[] {
  if (secrets.length === 0) return ["No webhook secret is configured: deliveries cannot be verified."];
  const problems: string[] = [];
  secrets.forEach((secret, index) => {
    const which =
      secrets.length > 1 ? `Webhook secret ${index + 1} of ${secrets.length}` : "The webhook secret";
    if (signing.scheme === "standard-webhooks") {
      try {
        // The prefix and a key of at least 12 bytes are required here (the reference library tolerates less):
        // a value that is not a whole whsec_ secret was most likely cut short when copied.
        if (!STANDARD_SECRET.test(secret)) throw new InvalidWebhookSecretError("not a whole whsec_ secret");
        decodeWebhookSecret(secret);
      } catch (error) {
        if (!(error instanceof InvalidWebhookSecretError)) throw error;
        problems.push(
          `${which} (${secret.length} characters) is not "${SECRET_PREFIX}" followed by base64, as Standard Webhooks secrets are. Copy it again from where it was issued.`,
        );
      }
      return;
    }
    if (secret.length === 0) problems.push(`${which} is empty.`);
    else if (/\s/.test(secret)) {
      problems.push(
        `${which} (${secret.length} characters) contains whitespace: copy it again without spaces or line breaks.`,
      );
    } else if (secret.length < MIN_HMAC_SECRET_LENGTH) {
      problems.push(
        `${which} is ${secret.length} characters; an hmac-sha256 secret needs at least ${MIN_HMAC_SECRET_LENGTH}. Ask the supplier for a longer one.`,
      );
    }
  });
  return problems;
}

/** A new random secret in the scheme's form (the sandbox's, when none is given). */
export function generateSigningSecret(signing: WebhookSigning): string {
  return signing.scheme === "standard-webhooks" ? generateWebhookSecret() : randomBytes(32).toString("hex");
}
