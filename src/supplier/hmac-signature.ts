/**
 * The `hmac-sha256` signing scheme: an HMAC-SHA256 of the body (or of a template such as `{timestamp}.{body}`)
 * in a named header, hex or base64, with an optional prefix such as `sha256=`; an optional timestamp header
 * bounds replays. The key is the secret's UTF-8 bytes, as most suppliers that sign this way document it.
 *
 * Only webhook-signing.ts uses this file; it validates the configuration (webhookSigningSchema) before any of
 * it runs. No error ever carries a secret or a signature.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import {
  type HeaderSource,
  InvalidWebhookSecretError,
  WebhookVerificationError,
} from "./webhook-signature.ts";

export interface HmacSigningConfig {
  signatureHeader: string;
  encoding: "hex" | "base64";
  prefix?: string | undefined;
  timestampHeader?: string | undefined;
  signedContent: string;
  idHeader?: string | undefined;
}

export const SIGNED_CONTENT_PLACEHOLDERS = ["body", "timestamp", "id"] as const;
export type Placeholder = (typeof SIGNED_CONTENT_PLACEHOLDERS)[number];
export type SignedContentPart = { text: string } | { placeholder: Placeholder };

/** `{word}`: a placeholder (known or not); any other brace is literal text. */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Splits a signed-content template into literal text and placeholders; unknown placeholders are returned as names. */
export function parseSignedContent(template: string): { parts: SignedContentPart[]; unknown: string[] } {
  const parts: SignedContentPart[] = [];
  const unknown: string[] = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] as string;
    if (!(SIGNED_CONTENT_PLACEHOLDERS as readonly string[]).includes(name)) {
      unknown.push(name);
      continue;
    }
    if (match.index > last) parts.push({ text: template.slice(last, match.index) });
    parts.push({ placeholder: name as Placeholder });
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push({ text: template.slice(last) });
  return { parts, unknown };
}

/** HMAC-SHA256 output length: an offered signature decoding to anything else cannot match. */
const SIGNATURE_BYTES = 32;
const HEX_SIGNATURE = /^[0-9a-fA-F]{64}$/;
/** 32 bytes in base64 (standard or URL-safe alphabet), with or without its one `=` of padding. */
const BASE64_SIGNATURE = /^[A-Za-z0-9+/_-]{43}=?$/;
/** A header with more candidate signatures than this is not a rotation but an attempt to make us work. */
const MAX_OFFERED_SIGNATURES = 16;

/** Decodes one offered signature; null when it is not exactly 32 bytes in the configured encoding. */
function decodeSignature(text: string, encoding: HmacSigningConfig["encoding"]): Buffer | null {
  if (encoding === "hex") return HEX_SIGNATURE.test(text) ? Buffer.from(text, "hex") : null;
  if (!BASE64_SIGNATURE.test(text)) return null;
  const decoded = Buffer.from(text, "base64");
  if (decoded.length !== SIGNATURE_BYTES) return null;
  // The last character carries 2 unused bits: only the canonical one is a signature, so that every altered
  // character is refused rather than silently decoding to the same bytes.
  const canonical = decoded.toString("base64").slice(0, 43);
  return text.slice(0, 43).replaceAll("-", "+").replaceAll("_", "/") === canonical ? decoded : null;
}

function encodeSignature(digest: Buffer, encoding: HmacSigningConfig["encoding"]): string {
  return digest.toString(encoding);
}

/** A prefix that contains a comma (`v1,`) cannot also be a separator: then only whitespace separates. */
function separatorOf(config: HmacSigningConfig): RegExp {
  return config.prefix?.includes(",") ? /\s+/ : /[\s,]+/;
}

/** The candidate signatures of a header: each token with the configured prefix (case-insensitive) stripped. */
function offeredSignatures(header: string, config: HmacSigningConfig): Buffer[] | null {
  const tokens = header.split(separatorOf(config)).filter((token) => token.length > 0);
  if (tokens.length > MAX_OFFERED_SIGNATURES) return null;
  const prefix = config.prefix?.toLowerCase() ?? "";
  const offered: Buffer[] = [];
  for (const token of tokens) {
    const text = prefix !== "" && token.toLowerCase().startsWith(prefix) ? token.slice(prefix.length) : token;
    const decoded = decodeSignature(text, config.encoding);
    if (decoded !== null) offered.push(decoded);
  }
  return offered;
}

interface SignedValues {
  body: Buffer | string;
  timestamp: string | undefined;
  id: string | undefined;
}

/** Parsed templates: a configuration has one or two, and parsing on every delivery would cost ingest rate. */
const templates = new Map<string, SignedContentPart[]>();
function partsOf(template: string): SignedContentPart[] {
  let parts = templates.get(template);
  if (parts === undefined) {
    parts = parseSignedContent(template).parts;
    if (templates.size < 64) templates.set(template, parts);
  }
  return parts;
}

function digest(secret: string, config: HmacSigningConfig, values: SignedValues): Buffer {
  const hmac = createHmac("sha256", Buffer.from(secret, "utf8"));
  // The body is hashed as the raw bytes received (never re-encoded), so the signature is exact for any body.
  for (const part of partsOf(config.signedContent)) {
    if ("text" in part) hmac.update(part.text, "utf8");
    else if (part.placeholder === "body") hmac.update(values.body);
    else hmac.update(values[part.placeholder] ?? "", "utf8");
  }
  return hmac.digest();
}

function uses(config: HmacSigningConfig, placeholder: Placeholder): boolean {
  return partsOf(config.signedContent).some(
    (part) => "placeholder" in part && part.placeholder === placeholder,
  );
}

/** The headers a delivery must carry, lower-cased as Node presents them. */
export function requiredHmacHeaders(config: HmacSigningConfig): string[] {
  const names = [config.signatureHeader];
  if (config.timestampHeader !== undefined) names.push(config.timestampHeader);
  if (config.idHeader !== undefined && uses(config, "id")) names.push(config.idHeader);
  return names.map((name) => name.toLowerCase());
}

/** A header's value; repeated values are joined with ", " as Node joins repeated headers. */
export function headerValue(headers: HeaderSource, name: string): string | undefined {
  const lower = name.toLowerCase();
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(lower) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = record[lower];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === lower);
    if (key !== undefined) value = record[key];
  }
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : value.join(", ");
}

const UNIX_SECONDS = /^[0-9]{1,12}$/;
const UNIX_MILLISECONDS = /^[0-9]{13}$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Unix milliseconds of a timestamp header: Unix seconds, Unix milliseconds (13 digits) or ISO 8601 with a zone. */
export function parseTimestampHeader(text: string): number | null {
  const trimmed = text.trim();
  if (UNIX_SECONDS.test(trimmed)) return Number(trimmed) * 1000;
  if (UNIX_MILLISECONDS.test(trimmed)) return Number(trimmed);
  if (!ISO_8601.test(trimmed)) return null;
  const ms = Date.parse(trimmed);
  return Number.isFinite(ms) ? ms : null;
}

export interface HmacVerifyInput {
  config: HmacSigningConfig;
  headers: HeaderSource;
  rawBody: Buffer | string;
  secrets: readonly string[];
  nowSeconds: number;
  toleranceSeconds: number;
}

export function verifyHmacDelivery(input: HmacVerifyInput): { deliveryId?: string; timestamp?: number } {
  const { config } = input;
  const missing = requiredHmacHeaders(config).filter((name) => !headerValue(input.headers, name));
  if (missing.length > 0) {
    throw new WebhookVerificationError(
      "missing_headers",
      `The request lacks the ${missing.join(", ")} header${missing.length > 1 ? "s" : ""} the signing configuration requires: it was not signed by the supplier as configured (supplierEvents.signing).`,
    );
  }
  const signatureText = headerValue(input.headers, config.signatureHeader) as string;
  const id =
    config.idHeader === undefined ? undefined : headerValue(input.headers, config.idHeader) || undefined;
  let timestampText: string | undefined;
  let timestamp: number | undefined;
  if (config.timestampHeader !== undefined) {
    timestampText = headerValue(input.headers, config.timestampHeader) as string;
    const ms = parseTimestampHeader(timestampText);
    if (ms === null) {
      throw new WebhookVerificationError(
        "missing_headers",
        `The ${config.timestampHeader} header is not Unix seconds, Unix milliseconds or an ISO 8601 time with a zone.`,
      );
    }
    const away = input.nowSeconds - ms / 1000;
    if (Math.abs(away) > input.toleranceSeconds) {
      throw new WebhookVerificationError(
        "stale_timestamp",
        `The webhook timestamp is ${Math.round(away)} s away from now (tolerance ${input.toleranceSeconds} s): a replay, or a clock out of sync on one side.`,
      );
    }
    timestamp = Math.floor(ms / 1000);
  }
  if (input.secrets.length === 0) {
    throw new InvalidWebhookSecretError("At least one webhook secret is required to verify deliveries.");
  }
  const offered = offeredSignatures(signatureText, config) ?? [];
  const values = { body: input.rawBody, timestamp: timestampText, id };
  let matched = false;
  for (const secret of input.secrets) {
    if (secret.length === 0) throw new InvalidWebhookSecretError("A configured webhook secret is empty.");
    const expected = digest(secret, config, values);
    // Every candidate is compared (no early exit) so the time taken does not depend on which one matched.
    for (const candidate of offered) if (timingSafeEqual(candidate, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookVerificationError(
      "bad_signature",
      `No ${config.signatureHeader} signature matches a configured secret: the body was altered, or the sender uses another secret, encoding (${config.encoding}) or signed content (${config.signedContent}). Check supplierEvents.signing and the secret on both sides.`,
    );
  }
  return { ...(id !== undefined && { deliveryId: id }), ...(timestamp !== undefined && { timestamp }) };
}

export interface HmacSignInput {
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  body: string | Buffer;
  secrets: readonly string[];
}

/** The headers of a delivery signed with every secret (one signature each, as during a rotation). */
export function signHmacDelivery(config: HmacSigningConfig, input: HmacSignInput): Record<string, string> {
  if (input.secrets.length === 0)
    throw new InvalidWebhookSecretError("At least one webhook secret is required.");
  const timestamp = String(input.timestamp);
  const values = { body: input.body, timestamp, id: input.id };
  const separator = config.prefix?.includes(",") ? " " : ", ";
  const signatures = input.secrets.map((secret) => {
    if (secret.length === 0) throw new InvalidWebhookSecretError("A configured webhook secret is empty.");
    return `${config.prefix ?? ""}${encodeSignature(digest(secret, config, values), config.encoding)}`;
  });
  const headers: Record<string, string> = { [config.signatureHeader]: signatures.join(separator) };
  if (config.timestampHeader !== undefined) headers[config.timestampHeader] = timestamp;
  if (config.idHeader !== undefined) headers[config.idHeader] = input.id;
  return headers;
}
