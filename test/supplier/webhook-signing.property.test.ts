/**
 * Property tests: for any body and any valid signing configuration, what `signDelivery` signs `verifyDelivery`
 * accepts, and flipping any one byte of the body or any one character of the signature makes it refuse.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  signatureHeadersOf,
  signDelivery,
  verifyDelivery,
  type WebhookSigning,
  WebhookVerificationError,
  webhookSigningSchema,
} from "../../src/supplier/webhook-signing.ts";

const NOW = 1_795_000_000;
const WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

const headerName = fc.constantFrom("X-Signature", "X-Hub-Signature-256", "Signature", "x_sig");
const hmacConfig = fc
  .record({
    signatureHeader: headerName,
    encoding: fc.constantFrom("hex", "base64"),
    prefix: fc.option(fc.constantFrom("sha256=", "v1,", "v1=", "SIG:"), { nil: undefined }),
    timestamp: fc.boolean(),
    id: fc.boolean(),
    separator: fc.constantFrom(".", ":", "", "\n"),
  })
  .map(({ signatureHeader, encoding, prefix, timestamp, id, separator }) => {
    const parts = [...(id ? ["{id}"] : []), ...(timestamp ? ["{timestamp}"] : []), "{body}"];
    return webhookSigningSchema.parse({
      scheme: "hmac-sha256",
      signatureHeader,
      encoding,
      ...(prefix !== undefined && { prefix }),
      ...(timestamp && { timestampHeader: "X-Timestamp" }),
      ...(id && { idHeader: "X-Delivery-Id" }),
      signedContent: parts.join(separator),
    });
  });
const signingConfig: fc.Arbitrary<WebhookSigning> = fc.oneof(
  { arbitrary: fc.constant(webhookSigningSchema.parse({})), weight: 1 },
  { arbitrary: hmacConfig, weight: 4 },
);
const hmacSecret = fc
  .string({ minLength: 16, maxLength: 64, unit: "grapheme" })
  .filter((s) => !/\s/.test(s) && s.length >= 16);
const body = fc.uint8Array({ minLength: 0, maxLength: 512 }).map((bytes) => Buffer.from(bytes));
const deliveryId = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);

function secretsFor(signing: WebhookSigning, secret: string): string[] {
  return signing.scheme === "standard-webhooks" ? [WHSEC] : [secret];
}

function verifies(
  signing: WebhookSigning,
  headers: Record<string, string>,
  rawBody: Buffer,
  secrets: string[],
) {
  try {
    verifyDelivery({ signing, headers, rawBody, secrets, nowSeconds: NOW });
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError && error.code === "bad_signature") return false;
    throw error;
  }
}

describe("sign then verify", () => {
  it("round-trips for random bodies, configurations and secrets, returning the id and time signed", () => {
    fc.assert(
      fc.property(
        signingConfig,
        body,
        hmacSecret,
        deliveryId,
        fc.integer({ min: -300, max: 300 }),
        (signing, raw, secret, id, skew) => {
          const secrets = secretsFor(signing, secret);
          const headers = signDelivery(signing, { id, timestamp: NOW + skew, body: raw, secret: secrets });
          for (const name of signatureHeadersOf(signing)) {
            expect(Object.keys(headers).map((k) => k.toLowerCase())).toContain(name);
          }
          const verified = verifyDelivery({ signing, headers, rawBody: raw, secrets, nowSeconds: NOW });
          if (signing.scheme === "standard-webhooks" || signing.timestampHeader)
            expect(verified.timestamp).toBe(NOW + skew);
          if (signing.scheme === "standard-webhooks" || signing.idHeader)
            expect(verified.deliveryId).toBe(id);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never verifies a body with one byte flipped", () => {
    fc.assert(
      fc.property(
        signingConfig,
        body.filter((b) => b.length > 0),
        hmacSecret,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (signing, raw, secret, at, mask) => {
          const secrets = secretsFor(signing, secret);
          const headers = signDelivery(signing, { id: "evt_1", timestamp: NOW, body: raw, secret: secrets });
          const flipped = Buffer.from(raw);
          const index = at % flipped.length;
          flipped[index] = (flipped[index] as number) ^ mask;
          expect(verifies(signing, headers, flipped, secrets)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never verifies a signature with one character changed", () => {
    fc.assert(
      fc.property(hmacConfig, body, hmacSecret, fc.nat(), (signing, raw, secret, at) => {
        if (signing.scheme !== "hmac-sha256") return;
        const headers = signDelivery(signing, { id: "evt_1", timestamp: NOW, body: raw, secret });
        const value = headers[signing.signatureHeader] as string;
        const start = signing.prefix?.length ?? 0;
        const index = start + (at % (value.length - start));
        const original = value[index] as string;
        // A different character of the same alphabet, so the signature still decodes, to different bytes.
        const alphabet =
          signing.encoding === "hex"
            ? "0123456789abcdef"
            : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        if (original === "=") return;
        const replacement = alphabet[(alphabet.indexOf(original) + 1) % alphabet.length] as string;
        const tampered = {
          ...headers,
          [signing.signatureHeader]: value.slice(0, index) + replacement + value.slice(index + 1),
        };
        expect(verifies(signing, tampered, raw, [secret])).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
