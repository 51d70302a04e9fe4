/**
 * Forged, altered and replayed signatures under each signing scheme a customer can configure, over the real wire
 * on every store: Standard Webhooks (the default), the alt dialect's hmac-sha256 (examples/supplier-events.alt.yml:
 * `sha256=<hex>` over "{timestamp}.{body}"), and an hmac-sha256 in base64 over the body alone, with no timestamp.
 * The receiver's clock is injected, so "outside the window" is a clock moved forward, not a wait.
 *
 * Each refusal is a 4xx saying why, and stores nothing; a replay within the window is a duplicate that changes
 * nothing; outside it, where the scheme has a timestamp, it is refused. The signatures here are computed with
 * node:crypto from the schemes' definitions, so each variant differs from a genuine one in exactly one way; a
 * genuine one is accepted first, so every refusal is for that one difference.
 */
import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { supplierEventsSchema } from "../../src/config/supplier-events.ts";
import type { Store } from "../../src/store/db.ts";
import { compileEventMapping, eventMappingSchema } from "../../src/supplier/event-mapping.ts";
import {
  STANDARD_WEBHOOKS_SIGNING,
  signDelivery,
  type WebhookSigning,
  webhookSigningSchema,
} from "../../src/supplier/webhook-signing.ts";
import type { WebhookReceiverOptions } from "../../src/webhooks/receiver.ts";
import { getTestStore, TEST_BACKENDS } from "../helpers/db.ts";
import { type Harness, placeOrder, SECRET, startHarness } from "./support.ts";

const ALT = supplierEventsSchema.parse(
  parse(readFileSync(new URL("../../examples/supplier-events.alt.yml", import.meta.url), "utf8")),
);
const HMAC_SECRET = Buffer.alloc(24, 11).toString("hex");
/** Our clock: Tue 24 Nov 2026, 10:00 UTC, moved forward by the tests. */
const START = Date.UTC(2026, 10, 24, 10, 0, 0);
const TOLERANCE = 300;

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

interface Scheme {
  name: string;
  signing: WebhookSigning;
  secret: string;
  receiver: Partial<WebhookReceiverOptions>;
  /** A readable event for the order, as this scheme's supplier writes it, and its id. */
  event(correlationId: string): { id: string; body: string };
  /** The raw HMAC the scheme computes for a delivery (key, and content signed). */
  digest(input: { id: string; timestamp: number; body: string }): Buffer;
  /** The headers of a delivery carrying `signature` (as the header's text) for `id` at `timestamp`. */
  headers(input: { id: string; timestamp: number; signature: string }): Record<string, string>;
  /** The header's text for a genuine digest. */
  encode(digest: Buffer): string;
  /** Variants of a genuine signature, each wrong in one way. */
  forgeries(digest: Buffer): Array<{ name: string; signature: string }>;
  /** Whether a timestamp bounds a replay. */
  timestamped: boolean;
}

const standard: Scheme = {
  name: "Standard Webhooks",
  signing: STANDARD_WEBHOOKS_SIGNING,
  secret: SECRET,
  receiver: {},
  event: (correlationId) => {
    const id = `evt_${randomUUID().replace(/-/g, "")}`;
    const body = JSON.stringify({
      id,
      type: "order.status_changed",
      occurredAt: "2026-11-24T09:00:00+00:00",
      correlationId,
      data: { status: "packed" },
    });
    return { id, body };
  },
  digest: ({ id, timestamp, body }) =>
    createHmac("sha256", Buffer.from(SECRET.slice("whsec_".length), "base64"))
      .update(`${id}.${timestamp}.${body}`)
      .digest(),
  headers: ({ id, timestamp, signature }) => ({
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature,
  }),
  encode: (digest) => `v1,${digest.toString("base64")}`,
  forgeries: (digest) => [
    { name: "hex where base64 is expected", signature: `v1,${digest.toString("hex")}` },
    { name: "truncated", signature: `v1,${digest.toString("base64").slice(0, -4)}` },
    {
      name: "with extra bytes",
      signature: `v1,${Buffer.concat([digest, Buffer.from([0])]).toString("base64")}`,
    },
    { name: "the wrong version prefix", signature: `v2,${digest.toString("base64")}` },
    { name: "without its prefix", signature: digest.toString("base64") },
  ],
  timestamped: true,
};

const altHmac: Scheme = {
  name: "hmac-sha256, hex, sha256= over {timestamp}.{body} (examples/supplier-events.alt.yml)",
  signing: ALT.signing,
  secret: HMAC_SECRET,
  receiver: { signing: ALT.signing, mapper: compileEventMapping(ALT.mapping) },
  event: (correlationId) => {
    const id = `evt_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
    const body = JSON.stringify({
      eventId: id,
      eventType: "ORDER_STATUS",
      createdAt: Date.UTC(2026, 10, 24, 9, 0),
      order: { correlationId },
      status: { code: "PACKED" },
    });
    return { id, body };
  },
  digest: ({ timestamp, body }) => createHmac("sha256", HMAC_SECRET).update(`${timestamp}.${body}`).digest(),
  headers: ({ id, timestamp, signature }) => ({
    "X-Supplier-Signature": signature,
    "X-Supplier-Timestamp": String(timestamp),
    "X-Supplier-Delivery": id,
  }),
  encode: (digest) => `sha256=${digest.toString("hex")}`,
  forgeries: (digest) => [
    { name: "base64 where hex is configured", signature: `sha256=${digest.toString("base64")}` },
    { name: "truncated", signature: `sha256=${digest.toString("hex").slice(0, 63)}` },
    { name: "with an extra byte", signature: `sha256=${digest.toString("hex")}00` },
    { name: "the wrong prefix", signature: `sha1=${digest.toString("hex")}` },
    { name: "a prefix with another separator", signature: `sha256:${digest.toString("hex")}` },
    { name: "one hex digit changed", signature: `sha256=${flipLastHex(digest.toString("hex"))}` },
  ],
  timestamped: true,
};

/** A supplier that signs the body alone, in base64, with no timestamp: only deduplication bounds a replay. */
const BODY_ONLY = webhookSigningSchema.parse({
  scheme: "hmac-sha256",
  signatureHeader: "X-Signature",
  encoding: "base64",
});
const bodyOnly: Scheme = {
  name: "hmac-sha256, base64 over the body, no timestamp",
  signing: BODY_ONLY,
  secret: HMAC_SECRET,
  receiver: {
    signing: BODY_ONLY,
    mapper: compileEventMapping(eventMappingSchema.parse({})),
  },
  event: standard.event,
  digest: ({ body }) => createHmac("sha256", HMAC_SECRET).update(body).digest(),
  headers: ({ signature }) => ({ "X-Signature": signature }),
  encode: (digest) => digest.toString("base64"),
  forgeries: (digest) => [
    { name: "hex where base64 is configured", signature: digest.toString("hex") },
    { name: "truncated", signature: digest.toString("base64").slice(0, 40) },
    { name: "with an extra byte", signature: Buffer.concat([digest, Buffer.from([1])]).toString("base64") },
    { name: "a prefix that is not configured", signature: `sha256=${digest.toString("base64")}` },
  ],
  timestamped: false,
};

function flipLastHex(hex: string): string {
  const last = hex.at(-1) === "0" ? "1" : "0";
  return `${hex.slice(0, -1)}${last}`;
}

describe.each(TEST_BACKENDS)("signatures under attack (%s)", (backend) => {
  describe.each([standard, altHmac, bodyOnly])("$name", (scheme) => {
    let store: Store;
    let h: Harness;
    let correlationId: string;
    let clock = START;
    const nowSeconds = () => Math.floor(clock / 1000);

    beforeAll(async () => {
      store = await getTestStore(backend);
      h = await startHarness(store, {
        secrets: () => [scheme.secret],
        receiver: { ...scheme.receiver, now: () => clock, toleranceSeconds: TOLERANCE },
      });
      correlationId = (await placeOrder(h)).correlationId;
    });
    afterAll(async () => {
      await h?.close();
    });

    async function post(delivery: Delivery): Promise<{ status: number; answer: Record<string, unknown> }> {
      const res = await fetch(h.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...delivery.headers },
        body: delivery.body,
      });
      return { status: res.status, answer: (await res.json()) as Record<string, unknown> };
    }

    /** A genuine delivery of a new event, signed at `timestamp` (default: our clock). */
    function genuine(timestamp = nowSeconds()): Delivery & { id: string } {
      const { id, body } = scheme.event(correlationId);
      const signature = scheme.encode(scheme.digest({ id, timestamp, body }));
      return { id, body, headers: scheme.headers({ id, timestamp, signature }) };
    }

    async function stored(): Promise<number> {
      const { rows } = await store.query<{ n: number }>(
        `SELECT (SELECT count(*)::int FROM supplier_events) + (SELECT count(*)::int FROM unreadable_events) AS n`,
      );
      return rows[0]?.n ?? 0;
    }

    /** Sends each, expecting `status` and `error` for all of them, and nothing stored. */
    async function refused(
      deliveries: Array<{ name: string; delivery: Delivery }>,
      status: number,
      error: string,
    ): Promise<void> {
      const before = await stored();
      const wrong: string[] = [];
      for (const { name, delivery } of deliveries) {
        const { status: got, answer } = await post(delivery);
        if (got !== status || answer.error !== error) wrong.push(`${name}: ${got} ${String(answer.error)}`);
      }
      expect(wrong).toEqual([]);
      expect(await stored()).toBe(before);
    }

    it("accepts a genuine delivery, then refuses it re-signed in every wrong encoding with 401, storing nothing", async () => {
      const real = genuine();
      expect((await post(real)).status).toBe(200);
      const next = genuine();
      const digest = scheme.digest({ id: next.id, timestamp: nowSeconds(), body: next.body });
      await refused(
        scheme.forgeries(digest).map(({ name, signature }) => ({
          name,
          delivery: {
            body: next.body,
            headers: scheme.headers({ id: next.id, timestamp: nowSeconds(), signature }),
          },
        })),
        401,
        "bad_signature",
      );
      // The genuine signature of that same delivery still goes through: only the encoding was wrong.
      expect((await post(next)).status).toBe(200);
    });

    it("refuses a signature made for another body, with another secret, or by the other scheme, with 401", async () => {
      const a = genuine();
      const b = genuine();
      const otherSecret =
        scheme.signing.scheme === "standard-webhooks"
          ? `whsec_${Buffer.alloc(32, 1).toString("base64")}`
          : Buffer.alloc(24, 12).toString("hex");
      const otherScheme: WebhookSigning =
        scheme.signing.scheme === "standard-webhooks" ? ALT.signing : STANDARD_WEBHOOKS_SIGNING;
      const stolen = { body: b.body, headers: a.headers };
      const otherKey = {
        body: a.body,
        headers: signDelivery(scheme.signing, {
          id: a.id,
          timestamp: nowSeconds(),
          body: a.body,
          secret: otherSecret,
        }),
      };
      // The same body signed the other scheme's way (with this receiver's secret where the other scheme can use it).
      const crossed = {
        body: a.body,
        headers: signDelivery(otherScheme, {
          id: a.id,
          timestamp: nowSeconds(),
          body: a.body,
          secret: otherScheme.scheme === "standard-webhooks" ? SECRET : HMAC_SECRET,
        }),
      };
      await refused(
        [
          { name: "another body's signature", delivery: stolen },
          { name: "another secret", delivery: otherKey },
        ],
        401,
        "bad_signature",
      );
      await refused([{ name: "the other scheme", delivery: crossed }], 401, "missing_headers");
      expect((await post(a)).status).toBe(200);
    });

    // Several signatures in the header are a rotation; past 16 they are an attempt to make us compute.
    if (scheme.signing.scheme === "hmac-sha256")
      it("accepts the genuine signature among 16 candidates and refuses a header of 17, storing nothing; keeps a long delivery id cut short", async () => {
        const signing = scheme.signing as Extract<WebhookSigning, { scheme: "hmac-sha256" }>;
        const separator = signing.prefix?.includes(",") ? " " : ", ";
        const decoys = (n: number) =>
          Array.from({ length: n }, (_, i) =>
            scheme.encode(createHmac("sha256", `decoy-secret-${i}`).update("x").digest()),
          );
        const withCandidates = (n: number): Delivery & { id: string } => {
          const real = genuine();
          const header = Object.keys(real.headers).find(
            (name) => name.toLowerCase() === signing.signatureHeader.toLowerCase(),
          ) as string;
          return {
            ...real,
            headers: { ...real.headers, [header]: [...decoys(n - 1), real.headers[header]].join(separator) },
          };
        };
        await refused([{ name: "17 candidates", delivery: withCandidates(17) }], 401, "bad_signature");
        const sixteen = withCandidates(16);
        expect((await post(sixteen)).status).toBe(200);

        if (signing.idHeader === undefined) return;
        const long = genuine();
        const idHeader = Object.keys(long.headers).find(
          (name) => name.toLowerCase() === signing.idHeader?.toLowerCase(),
        ) as string;
        const { status } = await post({
          ...long,
          headers: { ...long.headers, [idHeader]: `dlv_${"9".repeat(8_000)}` },
        });
        expect(status).toBe(200);
        const { rows } = await store.query<{ delivery: { deliveryId?: string } }>(
          "SELECT delivery FROM supplier_events WHERE id = $1",
          [long.id],
        );
        expect(rows[0]?.delivery.deliveryId?.length ?? 0).toBeLessThan(300);
      });

    it("refuses an unsigned delivery, or one without its signature header, with 401 before reading it, storing nothing", async () => {
      const real = genuine();
      const signatureHeader =
        scheme.signing.scheme === "standard-webhooks" ? "webhook-signature" : scheme.signing.signatureHeader;
      const { [signatureHeader]: _dropped, ...rest } = real.headers;
      await refused(
        [
          { name: "no headers at all", delivery: { body: real.body, headers: {} } },
          { name: "no signature header", delivery: { body: real.body, headers: rest } },
          {
            name: "an empty signature header",
            delivery: { body: real.body, headers: { ...rest, [signatureHeader]: "" } },
          },
        ],
        401,
        "missing_headers",
      );
    });

    it("deduplicates a replay within the window and, where the scheme has a timestamp, refuses it outside", async () => {
      const real = genuine();
      expect((await post(real)).answer).toMatchObject({ ok: true, duplicate: false });
      const before = await stored();
      clock += (TOLERANCE - 10) * 1000;
      expect((await post(real)).answer).toMatchObject({ ok: true, id: real.id, duplicate: true });
      clock += 20 * 1000;
      const late = await post(real);
      if (scheme.timestamped)
        expect(late).toMatchObject({ status: 400, answer: { error: "stale_timestamp" } });
      else expect(late).toMatchObject({ status: 200, answer: { duplicate: true } });
      // The supplier's own redelivery is signed afresh: still the same event, once.
      const again = {
        ...real,
        headers: scheme.headers({
          id: real.id,
          timestamp: nowSeconds(),
          signature: scheme.encode(scheme.digest({ id: real.id, timestamp: nowSeconds(), body: real.body })),
        }),
      };
      expect((await post(again)).answer).toMatchObject({ ok: true, id: real.id, duplicate: true });
      expect(await stored()).toBe(before);
    });

    // Only a scheme with a timestamp has a window (bodyOnly's replays are the test above).
    if (scheme.timestamped)
      it("refuses stale and future timestamps, a timestamp that is not a time, and a timestamp swapped under a signature", async () => {
        const now = nowSeconds();
        const signedAt = (timestamp: number) => ({
          name: `signed at now ${timestamp - now} s`,
          delivery: genuine(timestamp),
        });
        await refused(
          [signedAt(now - TOLERANCE - 1), signedAt(now + TOLERANCE + 1), signedAt(now - 86_400)],
          400,
          "stale_timestamp",
        );
        expect((await post(genuine(now - TOLERANCE + 5))).status).toBe(200);
        expect((await post(genuine(now + TOLERANCE - 5))).status).toBe(200);

        const real = genuine(now - 5);
        const timestampHeader =
          scheme.signing.scheme === "standard-webhooks"
            ? "webhook-timestamp"
            : (scheme.signing.timestampHeader as string);
        await refused(
          [
            {
              name: "the timestamp moved",
              delivery: { ...real, headers: { ...real.headers, [timestampHeader]: String(now) } },
            },
          ],
          401,
          "bad_signature",
        );
        await refused(
          [
            {
              name: "a timestamp that is not a time",
              delivery: { ...real, headers: { ...real.headers, [timestampHeader]: "yesterday" } },
            },
          ],
          401,
          "missing_headers",
        );
      });
  });
});
