import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  decodeWebhookSecret,
  generateWebhookSecret,
  InvalidWebhookSecretError,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from "../../src/supplier/webhook-signature.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OTHER = "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=";
const BODY = JSON.stringify({ id: "evt_1", type: "order.status_changed", data: { status: "picked" } });

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function verificationCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
  return "verified";
}

describe("signWebhook", () => {
  it("produces headers the reference standardwebhooks package verifies", () => {
    const timestamp = nowSeconds();
    const headers = signWebhook({ id: "msg_1", timestamp, body: BODY, secret: SECRET });
    expect(headers["webhook-id"]).toBe("msg_1");
    expect(headers["webhook-timestamp"]).toBe(String(timestamp));
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it("matches the reference implementation's signature byte for byte", () => {
    const timestamp = 1_700_000_000;
    const headers = signWebhook({ id: "msg_2", timestamp, body: BODY, secret: SECRET });
    expect(headers["webhook-signature"]).toBe(
      new Webhook(SECRET).sign("msg_2", new Date(timestamp * 1000), BODY),
    );
  });

  it("signs with every secret during a rotation, and each receiver accepts it", () => {
    const headers = signWebhook({
      id: "msg_3",
      timestamp: nowSeconds(),
      body: BODY,
      secret: [SECRET, OTHER],
    });
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(SECRET).verify(BODY, headers)).not.toThrow();
    expect(() => new Webhook(OTHER).verify(BODY, headers)).not.toThrow();
  });

  it("refuses a secret that is not whsec_<base64> without echoing it", () => {
    const error = (() => {
      try {
        signWebhook({ id: "m", timestamp: 1, body: "{}", secret: "whsec_not base64!" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidWebhookSecretError);
    expect(String((error as Error).message)).not.toContain("not base64!");
  });
});

describe("verifyWebhook", () => {
  it("accepts a delivery signed by the reference package and returns its id and timestamp", () => {
    const timestamp = nowSeconds();
    const signature = new Webhook(SECRET).sign("msg_4", new Date(timestamp * 1000), BODY);
    const headers = {
      "webhook-id": "msg_4",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signature,
    };
    expect(
      verifyWebhook({ headers, rawBody: Buffer.from(BODY), secrets: [SECRET], nowSeconds: nowSeconds() }),
    ).toEqual({ id: "msg_4", timestamp });
  });

  it("accepts any of several secrets and any of several signatures", () => {
    const timestamp = nowSeconds();
    const headers = signWebhook({ id: "msg_5", timestamp, body: BODY, secret: OTHER });
    headers["webhook-signature"] =
      `v1,${Buffer.alloc(32).toString("base64")} ${headers["webhook-signature"]}`;
    expect(
      verifyWebhook({ headers, rawBody: BODY, secrets: [SECRET, OTHER], nowSeconds: timestamp }).id,
    ).toBe("msg_5");
  });

  it("reads fetch Headers and mixed-case header records", () => {
    const timestamp = nowSeconds();
    const signed = signWebhook({ id: "msg_6", timestamp, body: BODY, secret: SECRET });
    expect(
      verifyWebhook({
        headers: new Headers({ ...signed }),
        rawBody: BODY,
        secrets: [SECRET],
        nowSeconds: timestamp,
      }).id,
    ).toBe("msg_6");
    const mixed = {
      "Webhook-Id": signed["webhook-id"],
      "Webhook-Timestamp": signed["webhook-timestamp"],
      "Webhook-Signature": signed["webhook-signature"],
    };
    expect(
      verifyWebhook({ headers: mixed, rawBody: BODY, secrets: [SECRET], nowSeconds: timestamp }).id,
    ).toBe("msg_6");
  });

  it("rejects missing or malformed headers with missing_headers", () => {
    const timestamp = nowSeconds();
    const signed = signWebhook({ id: "msg_7", timestamp, body: BODY, secret: SECRET });
    const { "webhook-signature": _, ...withoutSignature } = signed;
    const verify = (headers: Record<string, string>) => () =>
      verifyWebhook({ headers, rawBody: BODY, secrets: [SECRET], nowSeconds: timestamp });
    expect(verificationCode(verify(withoutSignature))).toBe("missing_headers");
    expect(verificationCode(verify({ ...signed, "webhook-timestamp": "soon" }))).toBe("missing_headers");
  });

  it("rejects an altered body, another secret, or a signature of another version with bad_signature", () => {
    const timestamp = nowSeconds();
    const headers = signWebhook({ id: "msg_8", timestamp, body: BODY, secret: SECRET });
    const verify =
      (rawBody: string, secrets: string[], h = headers) =>
      () =>
        verifyWebhook({ headers: h, rawBody, secrets, nowSeconds: timestamp });
    expect(verificationCode(verify(`${BODY} `, [SECRET]))).toBe("bad_signature");
    expect(verificationCode(verify(BODY, [OTHER]))).toBe("bad_signature");
    const v2 = { ...headers, "webhook-signature": headers["webhook-signature"].replace("v1,", "v2,") };
    expect(verificationCode(verify(BODY, [SECRET], v2))).toBe("bad_signature");
    const otherId = { ...headers, "webhook-id": "msg_9" };
    expect(verificationCode(verify(BODY, [SECRET], otherId))).toBe("bad_signature");
  });

  it("rejects timestamps outside the tolerance window in either direction with stale_timestamp", () => {
    const timestamp = 1_700_000_000;
    const headers = signWebhook({ id: "msg_10", timestamp, body: BODY, secret: SECRET });
    const at = (now: number, toleranceSeconds?: number) => () =>
      verifyWebhook({
        headers,
        rawBody: BODY,
        secrets: [SECRET],
        nowSeconds: now,
        ...(toleranceSeconds !== undefined && { toleranceSeconds }),
      });
    expect(verificationCode(at(timestamp + 300))).toBe("verified");
    expect(verificationCode(at(timestamp + 301))).toBe("stale_timestamp");
    expect(verificationCode(at(timestamp - 301))).toBe("stale_timestamp");
    expect(verificationCode(at(timestamp + 30, 10))).toBe("stale_timestamp");
  });

  it("never puts the secret or the signature in its error", () => {
    const timestamp = nowSeconds();
    const headers = signWebhook({ id: "msg_11", timestamp, body: BODY, secret: SECRET });
    try {
      verifyWebhook({ headers, rawBody: "{}", secrets: [SECRET], nowSeconds: timestamp });
      expect.unreachable();
    } catch (error) {
      const text = `${(error as Error).message} ${JSON.stringify(error)}`;
      expect(text).not.toContain(SECRET.slice(6));
      expect(text).not.toContain(headers["webhook-signature"].slice(3));
    }
  });
});

describe("secrets", () => {
  it("generates whsec_ secrets of 32 random bytes that the reference package accepts", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeWebhookSecret(secret)).toHaveLength(32);
    const headers = signWebhook({ id: "msg_12", timestamp: nowSeconds(), body: BODY, secret });
    expect(() => new Webhook(secret).verify(BODY, headers)).not.toThrow();
  });
});
