/**
 * Signing as configuration: the schema's messages, Standard Webhooks interop with the reference package, our
 * HMAC signer against HMACs computed here with node:crypto, rotation, replays, wrong encodings and missing
 * headers. Verification always gets an injected `nowSeconds`, except against the reference package (which reads
 * the machine's clock).
 */
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  InvalidWebhookSecretError,
  signatureHeadersOf,
  signDelivery,
  type VerifyDeliveryInput,
  verifyDelivery,
  type WebhookSigning,
  type WebhookSigningInput,
  WebhookVerificationError,
  webhookSecretProblems,
  webhookSigningSchema,
} from "../../src/supplier/webhook-signing.ts";

const WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OTHER_WHSEC = "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=";
const SECRET = "correct-horse-battery-staple";
const NEW_SECRET = "rotated-in-last-tuesday-ü";
const NOW = 1_795_000_000;
const BODY = JSON.stringify({ eventId: "evt_1", eventType: "ORDER_STATUS", status: { code: "PICKED" } });

const hmacSigning = (input: Omit<Extract<WebhookSigningInput, object>, "scheme"> = {}): WebhookSigning =>
  webhookSigningSchema.parse({ scheme: "hmac-sha256", signatureHeader: "X-Signature", ...input });

const ALT = hmacSigning({
  signatureHeader: "X-Supplier-Signature",
  prefix: "sha256=",
  timestampHeader: "X-Supplier-Timestamp",
  signedContent: "{timestamp}.{body}",
  idHeader: "X-Supplier-Delivery",
});

function hmac(secret: string, content: string, encoding: "hex" | "base64" = "hex"): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(content, "utf8").digest(encoding);
}

function outcome(
  input: Partial<VerifyDeliveryInput> & Pick<VerifyDeliveryInput, "signing" | "headers">,
): string {
  try {
    verifyDelivery({ rawBody: BODY, secrets: [SECRET], nowSeconds: NOW, ...input });
    return "verified";
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    if (error instanceof InvalidWebhookSecretError) return error.code;
    throw error;
  }
}

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a failure");
}

const issues = (input: unknown) => {
  const result = webhookSigningSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
};

describe("webhookSigningSchema", () => {
  it("defaults to Standard Webhooks when the block or the scheme is left out", () => {
    expect(webhookSigningSchema.parse(undefined)).toEqual({ scheme: "standard-webhooks" });
    expect(webhookSigningSchema.parse({})).toEqual({ scheme: "standard-webhooks" });
  });

  it("fills hmac-sha256 defaults: hex, signed content {body}", () => {
    expect(webhookSigningSchema.parse({ scheme: "hmac-sha256", signatureHeader: "X-Sig" })).toEqual({
      scheme: "hmac-sha256",
      signatureHeader: "X-Sig",
      encoding: "hex",
      signedContent: "{body}",
    });
  });

  it("explains each mistake in words a customer can act on", () => {
    expect(issues({ scheme: "hmac-sha256" })).toEqual([
      expect.stringContaining("signatureHeader is required"),
    ]);
    expect(issues({ scheme: "hmac" })).toEqual([
      expect.stringContaining('"standard-webhooks" (the default) or "hmac-sha256"'),
    ]);
    expect(issues({ prefix: "sha256=" })).toEqual([
      expect.stringContaining("only applies to scheme: hmac-sha256"),
    ]);
    expect(issues({ scheme: "hmac-sha256", signatureHeader: "X-Sig", secret: "x" })).toEqual([
      expect.stringContaining('Unknown key(s) "secret"'),
    ]);
    expect(issues({ scheme: "hmac-sha256", signatureHeader: "X Sig:" })).toEqual([
      expect.stringContaining("must be an HTTP header name"),
    ]);
    expect(issues({ scheme: "hmac-sha256", signatureHeader: "X-Sig", encoding: "b64" })).toEqual([
      'encoding must be "hex" or "base64".',
    ]);
    expect(issues({ scheme: "hmac-sha256", signatureHeader: "X-Sig", prefix: "sha 256=" })).toEqual([
      expect.stringContaining("printable ASCII"),
    ]);
    expect(issues({ scheme: "hmac-sha256", signatureHeader: "X-Sig", prefix: "é=" })).toEqual([
      expect.stringContaining("printable ASCII"),
    ]);
  });

  it("requires {body} exactly once, {timestamp} only with timestampHeader and {id} only with idHeader", () => {
    const base = { scheme: "hmac-sha256", signatureHeader: "X-Sig" };
    expect(issues({ ...base, signedContent: "{timestamp}" })).toEqual([
      expect.stringContaining("{body} exactly once"),
      expect.stringContaining("set timestampHeader"),
    ]);
    expect(issues({ ...base, signedContent: "{body}.{body}" })).toEqual([
      expect.stringContaining("exactly once"),
    ]);
    expect(issues({ ...base, signedContent: "{id}.{body}" })).toEqual([
      expect.stringContaining("set idHeader"),
    ]);
    expect(issues({ ...base, signedContent: "{ts}.{body}" })).toEqual([
      expect.stringContaining("unknown placeholder(s) {ts}"),
    ]);
    expect(
      issues({
        ...base,
        signedContent: "{id}:{timestamp}:{body}",
        idHeader: "X-Id",
        timestampHeader: "X-Ts",
      }),
    ).toEqual([]);
  });

  it("refuses two roles on one header, whatever its case", () => {
    expect(issues({ scheme: "hmac-sha256", signatureHeader: "X-Sig", timestampHeader: "x-sig" })).toEqual([
      expect.stringContaining("timestampHeader and signatureHeader name the same header"),
    ]);
  });
});

describe("signatureHeadersOf", () => {
  it("names the headers that must be present before the body is read, lower-cased", () => {
    expect(signatureHeadersOf(webhookSigningSchema.parse({}))).toEqual([
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
    ]);
    expect(signatureHeadersOf(hmacSigning())).toEqual(["x-signature"]);
    expect(signatureHeadersOf(ALT)).toEqual(["x-supplier-signature", "x-supplier-timestamp"]);
    expect(
      signatureHeadersOf(
        hmacSigning({ idHeader: "X-Id", timestampHeader: "X-Ts", signedContent: "{id}.{timestamp}.{body}" }),
      ),
    ).toEqual(["x-signature", "x-ts", "x-id"]);
  });
});

describe("Standard Webhooks (the default scheme)", () => {
  const signing = webhookSigningSchema.parse(undefined);
  const now = () => Math.floor(Date.now() / 1000);

  it("signs what the reference standardwebhooks package verifies, byte for byte", () => {
    const timestamp = now();
    const headers = signDelivery(signing, { id: "msg_1", timestamp, body: BODY, secret: WHSEC });
    expect(new Webhook(WHSEC).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(headers["webhook-signature"]).toBe(
      new Webhook(WHSEC).sign("msg_1", new Date(timestamp * 1000), BODY),
    );
  });

  it("verifies what the reference package signs and returns the delivery id and timestamp", () => {
    const timestamp = now();
    const headers = {
      "webhook-id": "msg_2",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": new Webhook(WHSEC).sign("msg_2", new Date(timestamp * 1000), BODY),
    };
    expect(
      verifyDelivery({
        signing,
        headers,
        rawBody: BODY,
        secrets: [OTHER_WHSEC, WHSEC],
        nowSeconds: timestamp,
      }),
    ).toEqual({ deliveryId: "msg_2", timestamp });
    expect(outcome({ signing, headers, secrets: [OTHER_WHSEC], nowSeconds: timestamp })).toBe(
      "bad_signature",
    );
    expect(outcome({ signing, headers, secrets: [WHSEC], nowSeconds: timestamp + 301 })).toBe(
      "stale_timestamp",
    );
    expect(outcome({ signing, headers: {}, secrets: [WHSEC] })).toBe("missing_headers");
  });
});

describe("hmac-sha256 against HMACs computed independently", () => {
  const cases: Array<{
    name: string;
    signing: WebhookSigning;
    expected: (ts: string, id: string) => Record<string, string>;
  }> = [
    {
      name: "hex of the body",
      signing: hmacSigning(),
      expected: () => ({ "X-Signature": hmac(SECRET, BODY) }),
    },
    {
      name: "base64 with a sha256= prefix",
      signing: hmacSigning({ encoding: "base64", prefix: "sha256=" }),
      expected: () => ({ "X-Signature": `sha256=${hmac(SECRET, BODY, "base64")}` }),
    },
    {
      name: "hex of timestamp.body with the timestamp and id headers (the alt dialect)",
      signing: ALT,
      expected: (ts, id) => ({
        "X-Supplier-Signature": `sha256=${hmac(SECRET, `${ts}.${BODY}`)}`,
        "X-Supplier-Timestamp": ts,
        "X-Supplier-Delivery": id,
      }),
    },
    {
      name: "base64 of id:timestamp:body",
      signing: hmacSigning({
        encoding: "base64",
        idHeader: "X-Id",
        timestampHeader: "X-Ts",
        signedContent: "v0:{id}:{timestamp}:{body}",
      }),
      expected: (ts, id) => ({
        "X-Signature": hmac(SECRET, `v0:${id}:${ts}:${BODY}`, "base64"),
        "X-Ts": ts,
        "X-Id": id,
      }),
    },
  ];

  for (const { name, signing, expected } of cases) {
    it(`signs and verifies ${name}`, () => {
      const headers = signDelivery(signing, { id: "dlv_7", timestamp: NOW, body: BODY, secret: SECRET });
      expect(headers).toEqual(expected(String(NOW), "dlv_7"));
      const verified = verifyDelivery({
        signing,
        headers,
        rawBody: BODY,
        secrets: [SECRET],
        nowSeconds: NOW,
      });
      if (signing.scheme === "hmac-sha256" && signing.timestampHeader) expect(verified.timestamp).toBe(NOW);
      if (signing.scheme === "hmac-sha256" && signing.idHeader) expect(verified.deliveryId).toBe("dlv_7");
      expect(outcome({ signing, headers, rawBody: `${BODY} ` })).toBe("bad_signature");
      expect(outcome({ signing, headers, secrets: ["a-different-secret-entirely"] })).toBe("bad_signature");
    });
  }

  it("hashes the body's raw bytes, also when they are not valid UTF-8", () => {
    const signing = hmacSigning();
    const raw = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const signature = createHmac("sha256", SECRET).update(raw).digest("hex");
    expect(outcome({ signing, headers: { "x-signature": signature }, rawBody: raw })).toBe("verified");
  });

  it("reads headers case-insensitively from a record or a fetch Headers", () => {
    const signing = hmacSigning();
    expect(outcome({ signing, headers: { "X-SIGNATURE": hmac(SECRET, BODY) } })).toBe("verified");
    expect(outcome({ signing, headers: new Headers({ "x-signature": hmac(SECRET, BODY) }) })).toBe(
      "verified",
    );
  });

  it("accepts an upper-case hex signature and a prefix in another case", () => {
    const signing = hmacSigning({ prefix: "sha256=" });
    expect(
      outcome({ signing, headers: { "x-signature": `SHA256=${hmac(SECRET, BODY).toUpperCase()}` } }),
    ).toBe("verified");
  });
});

describe("hmac-sha256 rotation", () => {
  const signing = hmacSigning({ prefix: "sha256=" });

  it("signs with every secret, and a receiver holding either one accepts the delivery", () => {
    const headers = signDelivery(signing, {
      id: "d",
      timestamp: NOW,
      body: BODY,
      secret: [SECRET, NEW_SECRET],
    });
    expect(headers["X-Signature"]).toBe(`sha256=${hmac(SECRET, BODY)}, sha256=${hmac(NEW_SECRET, BODY)}`);
    expect(outcome({ signing, headers, secrets: [SECRET] })).toBe("verified");
    expect(outcome({ signing, headers, secrets: [NEW_SECRET] })).toBe("verified");
  });

  it("accepts a delivery signed with the old secret while both are configured", () => {
    const headers = { "x-signature": `sha256=${hmac(SECRET, BODY)}` };
    expect(outcome({ signing, headers, secrets: [NEW_SECRET, SECRET] })).toBe("verified");
  });

  it("finds the good signature among several, separated by commas or spaces", () => {
    const bad = `sha256=${"0".repeat(64)}`;
    const good = `sha256=${hmac(SECRET, BODY)}`;
    for (const value of [`${bad},${good}`, `${bad} ${good}`, `${bad}, ${good}`, `garbage ${good}`]) {
      expect(outcome({ signing, headers: { "x-signature": value } })).toBe("verified");
    }
  });

  it("treats a repeated signature header (an array) as several signatures", () => {
    const headers = { "x-signature": [`sha256=${"a".repeat(64)}`, `sha256=${hmac(SECRET, BODY)}`] };
    expect(outcome({ signing, headers })).toBe("verified");
    expect(outcome({ signing, headers: { "x-signature": [`sha256=${"a".repeat(64)}`] } })).toBe(
      "bad_signature",
    );
  });

  it("splits on spaces only when the prefix itself holds a comma", () => {
    const v1 = hmacSigning({ prefix: "v1," });
    const headers = signDelivery(v1, { id: "d", timestamp: NOW, body: BODY, secret: [SECRET, NEW_SECRET] });
    expect(headers["X-Signature"]).toBe(`v1,${hmac(SECRET, BODY)} v1,${hmac(NEW_SECRET, BODY)}`);
    expect(outcome({ signing: v1, headers, secrets: [NEW_SECRET] })).toBe("verified");
  });
});

describe("hmac-sha256 replays and timestamps", () => {
  const signed = (timestamp: string) => ({
    "x-supplier-signature": `sha256=${hmac(SECRET, `${timestamp}.${BODY}`)}`,
    "x-supplier-timestamp": timestamp,
  });

  it("refuses a correctly signed delivery outside the tolerance, in the past or the future", () => {
    expect(outcome({ signing: ALT, headers: signed(String(NOW - 301)) })).toBe("stale_timestamp");
    expect(outcome({ signing: ALT, headers: signed(String(NOW + 301)) })).toBe("stale_timestamp");
    expect(outcome({ signing: ALT, headers: signed(String(NOW - 300)) })).toBe("verified");
    expect(outcome({ signing: ALT, headers: signed(String(NOW + 300)) })).toBe("verified");
    expect(outcome({ signing: ALT, headers: signed(String(NOW - 60)), toleranceSeconds: 30 })).toBe(
      "stale_timestamp",
    );
  });

  it("reads the timestamp in Unix seconds, milliseconds or ISO 8601, signed as sent", () => {
    // All four are NOW (2026-11-18T11:06:40Z), the milliseconds one 999 ms after it.
    for (const text of [
      String(NOW),
      String(NOW * 1000 + 999),
      "2026-11-18T11:06:40.000Z",
      "2026-11-18T12:06:40+01:00",
    ]) {
      expect(
        verifyDelivery({
          signing: ALT,
          headers: signed(text),
          rawBody: BODY,
          secrets: [SECRET],
          nowSeconds: NOW,
        }),
      ).toEqual({ timestamp: NOW });
    }
    expect(outcome({ signing: ALT, headers: signed("2026-11-18T11:06:40+01:00") })).toBe("stale_timestamp");
  });

  it("refuses a timestamp it cannot read, and one replayed under a fresh timestamp header", () => {
    for (const text of ["yesterday", "17950000000000", "2026-11-18", "-1795000000", "1795000000.5"]) {
      expect(outcome({ signing: ALT, headers: signed(text) })).toBe("missing_headers");
    }
    const replay = { ...signed(String(NOW - 3600)), "x-supplier-timestamp": String(NOW) };
    expect(outcome({ signing: ALT, headers: replay })).toBe("bad_signature");
  });

  it("refuses a repeated timestamp header, which has no single value", () => {
    const headers = { ...signed(String(NOW)), "x-supplier-timestamp": [String(NOW), String(NOW)] };
    expect(outcome({ signing: ALT, headers })).toBe("missing_headers");
  });
});

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** 32 bytes use 4 of the 6 bits of base64's 43rd character: this one decodes to the same bytes. */
function withUnusedBitFlipped(signature: string): string {
  const last = BASE64_ALPHABET[BASE64_ALPHABET.indexOf(signature[42] as string) ^ 1] as string;
  const changed = `${signature.slice(0, 42)}${last}=`;
  expect(Buffer.from(changed, "base64")).toEqual(Buffer.from(signature, "base64"));
  return changed;
}

describe("hmac-sha256 wrong encodings", () => {
  const hex = hmacSigning({ prefix: "sha256=" });
  const base64 = hmacSigning({ encoding: "base64" });
  const good = hmac(SECRET, BODY);
  const goodBase64 = hmac(SECRET, BODY, "base64");

  it.each([
    ["base64 in a hex configuration", hex, `sha256=${goodBase64}`],
    ["hex in a base64 configuration", base64, good],
    ["a truncated hex signature", hex, `sha256=${good.slice(0, 63)}`],
    ["a hex signature one byte short", hex, `sha256=${good.slice(0, 62)}`],
    ["a hex signature with an extra byte", hex, `sha256=${good}00`],
    [
      "a base64 signature with extra bytes",
      base64,
      Buffer.concat([Buffer.from(goodBase64, "base64"), Buffer.from([0])]).toString("base64"),
    ],
    ["a truncated base64 signature", base64, goodBase64.slice(0, 40)],
    ["a base64 signature whose unused last bits differ", base64, withUnusedBitFlipped(goodBase64)],
    ["non-ASCII look-alike digits", hex, `sha256=${good.slice(0, 63)}٣`],
    ["non-hex letters", hex, `sha256=${"g".repeat(64)}`],
    ["only the prefix", hex, "sha256="],
    ["the signature inside quotes", hex, `sha256="${good}"`],
    ["far too many candidates", hex, `${"x ".repeat(40)}sha256=${good}`],
  ])("answers bad_signature, and nothing else, for %s", (_name, signing, value) => {
    expect(outcome({ signing, headers: { "x-signature": value } })).toBe("bad_signature");
  });

  it("accepts base64 with or without padding and in the URL-safe alphabet", () => {
    const urlSafe = goodBase64.replaceAll("+", "-").replaceAll("/", "_");
    for (const value of [goodBase64, goodBase64.replace(/=$/, ""), urlSafe]) {
      expect(outcome({ signing: base64, headers: { "x-signature": value } })).toBe("verified");
    }
  });
});

describe("hmac-sha256 missing headers and secrets", () => {
  it("answers missing_headers, naming the header, when a required one is absent or empty", () => {
    const headers = { "x-supplier-signature": `sha256=${hmac(SECRET, `${NOW}.${BODY}`)}` };
    expect(outcome({ signing: ALT, headers })).toBe("missing_headers");
    expect(
      messageOf(() =>
        verifyDelivery({ signing: ALT, headers, rawBody: BODY, secrets: [SECRET], nowSeconds: NOW }),
      ),
    ).toContain("x-supplier-timestamp");
    expect(outcome({ signing: ALT, headers: { "x-supplier-timestamp": String(NOW) } })).toBe(
      "missing_headers",
    );
    expect(outcome({ signing: hmacSigning(), headers: { "x-signature": "" } })).toBe("missing_headers");
  });

  it("does without the id header unless the signed content uses it", () => {
    const headers = {
      "x-supplier-signature": `sha256=${hmac(SECRET, `${NOW}.${BODY}`)}`,
      "x-supplier-timestamp": String(NOW),
    };
    expect(
      verifyDelivery({ signing: ALT, headers, rawBody: BODY, secrets: [SECRET], nowSeconds: NOW }),
    ).toEqual({
      timestamp: NOW,
    });
    const withId = hmacSigning({ idHeader: "X-Id", signedContent: "{id}.{body}" });
    expect(outcome({ signing: withId, headers: { "x-signature": hmac(SECRET, `.${BODY}`) } })).toBe(
      "missing_headers",
    );
  });

  it("refuses to verify without a secret", () => {
    expect(
      outcome({ signing: hmacSigning(), headers: { "x-signature": hmac(SECRET, BODY) }, secrets: [] }),
    ).toBe("invalid_webhook_secret");
  });

  it("never puts a secret or a signature in an error message", () => {
    const signature = hmac(SECRET, BODY);
    const messages = [
      messageOf(() =>
        verifyDelivery({
          signing: hmacSigning(),
          headers: { "x-signature": signature },
          rawBody: "{}",
          secrets: [SECRET],
          nowSeconds: NOW,
        }),
      ),
      messageOf(() =>
        verifyDelivery({
          signing: ALT,
          headers: { "x-supplier-signature": signature, "x-supplier-timestamp": "soon" },
          rawBody: BODY,
          secrets: [SECRET],
          nowSeconds: NOW,
        }),
      ),
      ...webhookSecretProblems(hmacSigning(), ["short", "has a space in it!", ""]),
      ...webhookSecretProblems(webhookSigningSchema.parse({}), ["whsec_not base64!", SECRET]),
    ];
    for (const message of messages) {
      expect(message).not.toContain(signature);
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain("short");
      expect(message).not.toContain("base64!");
    }
  });
});

describe("webhookSecretProblems", () => {
  it("accepts whsec_ secrets for Standard Webhooks and refuses anything else", () => {
    const signing = webhookSigningSchema.parse({});
    expect(webhookSecretProblems(signing, [WHSEC, OTHER_WHSEC])).toEqual([]);
    expect(webhookSecretProblems(signing, [SECRET])).toEqual([
      expect.stringContaining('"whsec_" followed by base64'),
    ]);
    expect(webhookSecretProblems(signing, [])).toEqual([expect.stringContaining("No webhook secret")]);
  });

  it("wants hmac secrets of 16 characters or more without whitespace, and lists every problem", () => {
    const signing = hmacSigning();
    expect(webhookSecretProblems(signing, [SECRET, NEW_SECRET, WHSEC])).toEqual([]);
    expect(webhookSecretProblems(signing, ["fifteen-chars!!", `${SECRET}\n`, ""])).toEqual([
      "Webhook secret 1 of 3 is 15 characters; an hmac-sha256 secret needs at least 16. Ask the supplier for a longer one.",
      expect.stringContaining("Webhook secret 2 of 3 (29 characters) contains whitespace"),
      "Webhook secret 3 of 3 is empty.",
    ]);
  });
});
