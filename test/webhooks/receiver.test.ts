import { createHash, randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { postUpdateJobId } from "../../src/orders/updates/enqueue.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { signWebhook } from "../../src/supplier/webhook-signature.ts";
import { getTestStore } from "../helpers/db.ts";
import { sendWholeThenRead } from "../helpers/raw-http.ts";
import {
  deliver,
  type Harness,
  OLD_SECRET,
  placeOrder,
  SECRET,
  shippingEvent,
  startHarness,
  statusEvent,
} from "./support.ts";

let store: Store;
let h: Harness;
let secrets: string[] = [SECRET];

beforeAll(async () => {
  store = await getTestStore();
  h = await startHarness(store, { secrets: () => secrets, settleMs: 60_000 });
});
afterAll(async () => {
  await h?.close();
});

const unreadable = async (id: string) =>
  (await store.query("SELECT * FROM unreadable_events WHERE id = $1", [id])).rows[0];

const at = (minute: number) => new Date(Date.UTC(2026, 10, 24, 9, minute)).toISOString();

describe("POST /webhooks/supplier", () => {
  it("stores a signed event for a known order, enqueues its posting in the same transaction, and answers 200", async () => {
    const { orderId, correlationId } = await placeOrder(h);
    const event = statusEvent(correlationId, "validated", at(1), { somethingNew: { kept: true } });
    const res = await deliver(h.url, event);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, id: event.id, duplicate: false, orderKnown: true });
    const stored = await getEvent(store, event.id);
    // The body is kept as it came, unknown fields included, beside the event our mapping made of it.
    expect(stored).toMatchObject({
      orderId,
      type: "order.status_changed",
      payload: { id: event.id, type: event.type, correlationId, data: { status: "validated" } },
      rawBody: Buffer.from(JSON.stringify(event)),
      postedAt: null,
    });
    const job = await h.jobs.getJob(QUEUES.postUpdate, postUpdateJobId(event.id));
    expect(job).toMatchObject({ state: "created", data: { orderId, eventId: event.id } });
    // The settle delay postpones the posting.
    expect(job?.startAfter.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it("answers a redelivery 200 duplicate and enqueues nothing more", async () => {
    const { correlationId } = await placeOrder(h);
    const event = statusEvent(correlationId, "picked", at(2));
    expect((await deliver(h.url, event)).status).toBe(200);
    const again = await deliver(h.url, event);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, id: event.id, duplicate: true });
    const { rows } = await store.query(
      `SELECT count(*)::int AS n FROM ${h.jobs.schema}.job WHERE name = $1 AND data->>'eventId' = $2`,
      [QUEUES.postUpdate, event.id],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it("stores a concurrent burst once each, with one job per event, answering each after its commit", async () => {
    const orders = await Promise.all([placeOrder(h), placeOrder(h), placeOrder(h)]);
    const events = orders.flatMap((o, i) =>
      ["validated", "picked", "packed", "shipped"].map((status, j) =>
        statusEvent(o.correlationId, status, at(10 + i * 4 + j)),
      ),
    );
    // Each event twice at once: a redelivery racing its first delivery, often into the same batch.
    const answers = await Promise.all([...events, ...events].map((e) => deliver(h.url, e)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as { duplicate: boolean }[];
    expect(bodies.filter((b) => !b.duplicate)).toHaveLength(events.length);
    for (const e of events) {
      expect(await getEvent(store, e.id)).toMatchObject({ id: e.id, payload: { data: e.data } });
    }
    const { rows } = await store.query(
      `SELECT count(*)::int AS n FROM ${h.jobs.schema}.job WHERE name = $1 AND data->>'eventId' = ANY($2::text[])`,
      [QUEUES.postUpdate, events.map((e) => e.id)],
    );
    // One job per event that took the full path; events covered by a waiting job of their order add none.
    expect(rows[0]?.n).toBeGreaterThanOrEqual(orders.length);
    expect(rows[0]?.n).toBeLessThanOrEqual(events.length);
  });

  it("keeps, as unreadable, an event the database cannot store as an event, without failing the others committed with it", async () => {
    const { correlationId } = await placeOrder(h);
    const good = [1, 2, 3].map((m) => statusEvent(correlationId, "picked", at(30 + m)));
    // PostgreSQL's jsonb has no NUL character (in a value the event keeps: the reason).
    const poison = statusEvent(correlationId, "packed", at(40));
    poison.data = { status: "packed", reason: "a\u0000b" } as typeof poison.data;
    const answers = await Promise.all([...good, poison].map((e) => deliver(h.url, e)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 202]);
    for (const e of good) expect(await getEvent(store, e.id)).not.toBeNull();
    expect(await getEvent(store, poison.id)).toBeNull();
    expect(await unreadable(`id:${poison.id}`)).toMatchObject({ reason: expect.stringMatching(/NUL/) });
  });

  it("keeps an event whose order is not known yet as an orphan and answers 202", async () => {
    const event = statusEvent(randomUUID(), "received", at(3));
    const res = await deliver(h.url, event);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ ok: true, orderKnown: false });
    expect(await getEvent(store, event.id)).toMatchObject({ orderId: null });
    expect(await h.jobs.getJob(QUEUES.postUpdate, postUpdateJobId(event.id))).toBeNull();
  });

  it("keeps an event of an unknown type, as received", async () => {
    const { orderId, correlationId } = await placeOrder(h);
    const event = {
      id: `evt_${randomUUID()}`,
      type: "order.return_requested",
      occurredAt: at(4),
      correlationId,
      data: { rma: "RMA-1", lines: [{ itemNumber: "LAPTOP-14", quantity: 1 }] },
    };
    expect((await deliver(h.url, event)).status).toBe(200);
    expect(await getEvent(store, event.id)).toMatchObject({
      orderId,
      type: "order.return_requested",
      rawBody: Buffer.from(JSON.stringify(event)),
    });
  });

  it("accepts a delivery signed by the reference standardwebhooks library", async () => {
    const { correlationId } = await placeOrder(h);
    const event = shippingEvent(correlationId, at(5));
    const body = JSON.stringify(event);
    const now = new Date();
    const signature = new Webhook(SECRET).sign(event.id, now, body);
    const res = await fetch(h.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": event.id,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body,
    });
    expect(res.status).toBe(200);
  });

  it("accepts the old and the new secret during a rotation, and several signatures in one header", async () => {
    secrets = [SECRET, OLD_SECRET];
    try {
      const { correlationId } = await placeOrder(h);
      const oldOnly = statusEvent(correlationId, "picked", at(6));
      expect((await deliver(h.url, oldOnly, { secret: OLD_SECRET })).status).toBe(200);
      const both = statusEvent(correlationId, "packed", at(7));
      const unknownSecret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
      expect((await deliver(h.url, both, { secret: [unknownSecret, SECRET] })).status).toBe(200);
    } finally {
      secrets = [SECRET];
    }
  });

  it.each([
    [
      "a signature made with another secret",
      { secret: `whsec_${Buffer.alloc(32, 1).toString("base64")}` },
      "bad_signature",
    ],
    ["no webhook-signature header", { omit: ["webhook-signature"] }, "missing_headers"],
    ["no webhook-id header", { omit: ["webhook-id"] }, "missing_headers"],
  ])("answers 401 to %s and stores nothing", async (_what, options, error) => {
    const event = statusEvent(randomUUID(), "received", at(8));
    const res = await deliver(h.url, event, options);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ ok: false, error, message: expect.any(String) });
    expect(await getEvent(store, event.id)).toBeNull();
  });

  it("answers 400 to a validly signed event nested thousands of levels deep, and stores nothing", async () => {
    const event = statusEvent(randomUUID(), "received", at(11));
    // Built as text: JSON.stringify itself would overflow the test's stack at this depth.
    const deep = `${'{"d":'.repeat(5000)}"bottom"${"}".repeat(5000)}`;
    const body = `${JSON.stringify(event).slice(0, -1)},"extra":${deep}}`;
    const res = await deliver(h.url, body, { id: event.id });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false, error: "invalid_event" });
    expect(await getEvent(store, event.id)).toBeNull();
  });

  it("answers 401 when the body was altered after signing", async () => {
    const event = statusEvent(randomUUID(), "received", at(9));
    const body = JSON.stringify(event);
    const signed = signWebhook({
      id: event.id,
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secret: SECRET,
    });
    const res = await fetch(h.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...signed },
      body: body.replace("received", "cancelled"),
    });
    expect(res.status).toBe(401);
    expect(await getEvent(store, event.id)).toBeNull();
  });

  it.each([
    ["stale (6 minutes old)", -360],
    ["from the future (6 minutes ahead)", 360],
  ])("answers 400 to a timestamp %s", async (_what, offset) => {
    const event = statusEvent(randomUUID(), "received", at(10));
    const res = await deliver(h.url, event, { timestamp: Math.floor(Date.now() / 1000) + offset });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false, error: "stale_timestamp" });
    expect(await getEvent(store, event.id)).toBeNull();
  });

  it("refuses a replay of a captured delivery once its timestamp is out of the window, and dedups it within", async () => {
    const { correlationId } = await placeOrder(h);
    const event = statusEvent(correlationId, "packed", at(11));
    const captured = Math.floor(Date.now() / 1000) - 200;
    expect((await deliver(h.url, event, { timestamp: captured })).status).toBe(200);
    // Replayed within the window: stored once, posted once.
    expect(await (await deliver(h.url, event, { timestamp: captured })).json()).toMatchObject({
      duplicate: true,
    });
    // Replayed later: the same signed bytes are refused.
    expect((await deliver(h.url, event, { timestamp: captured - 400 })).status).toBe(400);
  });

  it("stores a signed event sent with another content type: an authentic delivery is never refused for its label", async () => {
    const { correlationId } = await placeOrder(h);
    const event = statusEvent(correlationId, "picked", at(12));
    const res = await deliver(h.url, event, { headers: { "content-type": "text/plain" } });
    expect(res.status).toBe(200);
    expect(await getEvent(store, event.id)).toMatchObject({ id: event.id });
  });

  it("keeps a signed body that is not JSON as unreadable, answers 202, and deduplicates it by its hash", async () => {
    const res = await deliver(h.url, "this is not json", { id: "msg_not_json" });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ ok: true, readable: false, duplicate: false });
    const hash = createHash("sha256").update("this is not json").digest("hex");
    expect(await unreadable(`sha256:${hash}`)).toMatchObject({ reason: "The body is not valid JSON." });
    const again = await deliver(h.url, "this is not json", { id: "msg_not_json" });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ duplicate: true, readable: false });
  });

  it("keeps a signed body that is not an event as unreadable with the reason, and posts nothing", async () => {
    const bad = {
      id: `evt_bad_${randomUUID()}`,
      type: "order.status_changed",
      occurredAt: "yesterday",
      correlationId: "nope",
      data: {},
    };
    const res = await deliver(h.url, bad);
    expect(res.status).toBe(202);
    const body = (await res.json()) as { note: string };
    expect(body).toMatchObject({ ok: true, readable: false, id: bad.id });
    expect(body.note).toMatch(/occurredAt/);
    expect(await getEvent(store, bad.id)).toBeNull();
    expect(await unreadable(`id:${bad.id}`)).toMatchObject({
      reason: expect.stringMatching(/occurredAt/),
      delivery: { scheme: "standard-webhooks", deliveryId: bad.id },
    });
  });

  it("keeps a signed body whose keys and values the database cannot hold as text (NUL, lone surrogates), rather than answering 503", async () => {
    // Written by hand: JSON.stringify would not keep the escapes as the supplier sent them.
    const body = '{"id":"evt_\\u0000x","\\u0000key":1,"odd\\ud800":"\\udfff","type":"\\ud800"}';
    const res = await deliver(h.url, body, { id: "msg_nul" });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ ok: true, readable: false });
    const again = await deliver(h.url, body, { id: "msg_nul" });
    expect(await again.json()).toMatchObject({ duplicate: true, readable: false });
  });

  it("deduplicates by the event's own id, whatever the delivery's id header says", async () => {
    const { correlationId } = await placeOrder(h);
    const event = statusEvent(correlationId, "packed", at(13));
    expect((await deliver(h.url, event, { id: "msg_first" })).status).toBe(200);
    const again = await deliver(h.url, event, { id: "msg_other" });
    expect(await again.json()).toMatchObject({ duplicate: true });
    expect(await getEvent(store, event.id)).toMatchObject({
      delivery: { deliveryId: "msg_first" },
      rawBody: Buffer.from(JSON.stringify(event)),
    });
  });

  it("answers 413 to a body over 1 MiB, declared or streamed", async () => {
    const big = JSON.stringify({
      ...statusEvent(randomUUID(), "received", at(14)),
      pad: "x".repeat(1_100_000),
    });
    const declared = await deliver(h.url, big, { id: "msg_big" });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ ok: false, error: "payload_too_large" });

    // Chunked, without content-length: cut off while streaming.
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        h.url,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "transfer-encoding": "chunked",
            // Signature headers present (not checked before the body is read): a request without them is refused
            // before its body is read at all.
            "webhook-id": "msg_streamed",
            "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
            "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")}`,
          },
        },
        (res) => {
          let text = "";
          res.on("data", (c) => {
            text += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      for (let i = 0; i < 12; i++) req.write("x".repeat(100_000));
      req.end();
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body)).toMatchObject({ error: "payload_too_large" });
  });

  it("answers its refusals to a client that sends a large body whole before reading, rather than resetting the connection", async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, "x");
    const tooLarge = await sendWholeThenRead(h.http.url, {
      path: "/webhooks/supplier",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(tooLarge.status).toBe(413);
    // Under the size limit, so the missing signature is what is refused.
    const unsigned = await sendWholeThenRead(h.http.url, {
      path: "/webhooks/supplier",
      headers: { "content-type": "application/json" },
      body: body.subarray(0, 1_000_000),
    });
    expect(unsigned.status).toBe(401);
    const nowhere = await sendWholeThenRead(h.http.url, { path: "/no-such-route", body });
    expect(nowhere.status).toBe(404);
  });

  it("answers 405 to another method", async () => {
    const res = await fetch(h.url);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("answers 503 with Retry-After when the webhook secret cannot be read", async () => {
    const previous = secrets;
    secrets = [];
    try {
      const res = await deliver(h.url, statusEvent(randomUUID(), "received", at(15)));
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(await res.json()).toMatchObject({ error: "secrets_unavailable" });
    } finally {
      secrets = previous;
    }
  });
});
