/**
 * The sandbox's alt dialect over real HTTP: every event arrives in the alt shape, signed with HMAC-SHA256 as
 * docs/sandbox.md says, and a local receiver verifies it with `verifyDelivery`; redeliveries and duplicates
 * carry the same id and body. The default dialect stays exactly our format.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ALT_DIALECT_SIGNING, encodeEvent, toAltEvent } from "../../src/sandbox/dialect.ts";
import { type SandboxHandle, type SandboxOptions, startSandbox } from "../../src/sandbox/sandbox.ts";
import { SUPPLIER_ORDER_STATES, type SupplierEvent } from "../../src/supplier/events.ts";
import {
  verifyDelivery,
  WebhookVerificationError,
  webhookSigningSchema,
} from "../../src/supplier/webhook-signing.ts";
import {
  createOrder,
  dispatcher,
  KEY,
  type Received,
  type Receiver,
  SECRET,
  startReceiver,
  validOrder,
  waitFor,
} from "./support.ts";

const FAST = 60_000;
const ALT_SECRET = "alt-dialect-test-secret-1";
const ALT_SECRET_NEXT = "alt-dialect-test-secret-2";
const running: Array<SandboxHandle | Receiver> = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});
afterAll(() => dispatcher.close());

const STATE_CODES = SUPPLIER_ORDER_STATES.map((state) => state.toUpperCase()) as [string, ...string[]];
const head = {
  eventId: z.string().regex(/^evt_[0-9a-f]{24}$/),
  createdAt: z.int().positive(),
  order: z.strictObject({ correlationId: z.uuid(), documentNumber: z.string().min(1) }),
};
/** The alt shape exactly (strict: a field of our format leaking into it fails). */
const altEventSchema = z.discriminatedUnion("eventType", [
  z.strictObject({
    ...head,
    eventType: z.enum(["ORDER_STATUS", "ORDER_CANCELLED"]),
    status: z.strictObject({
      code: z.enum(STATE_CODES),
      previous: z.enum(STATE_CODES).optional(),
      note: z.string().optional(),
    }),
  }),
  z.strictObject({
    ...head,
    eventType: z.literal("SHIPMENT"),
    shipment: z.strictObject({
      parcel: z.strictObject({ index: z.int().min(1), total: z.int().min(1) }),
      carrier: z.strictObject({ name: z.string().min(1) }),
      tracking: z.strictObject({ code: z.string().min(1), link: z.url() }),
      eta: z.iso.date().optional(),
      state: z.enum(["SHIPPED", "IN_TRANSIT", "OUT_FOR_DELIVERY", "DELIVERED", "EXCEPTION"]),
      problem: z.string().optional(),
      items: z.array(z.strictObject({ sku: z.string(), qty: z.int().min(0) })).min(1),
    }),
  }),
]);
type AltEvent = z.infer<typeof altEventSchema>;

/** A receiver that answers 401 to anything `verifyDelivery` refuses, as Order Desk's endpoint does. */
async function verifyingReceiver(
  secrets: readonly string[],
  answer: (delivery: Received, index: number) => number = () => 204,
): Promise<{ receiver: Receiver; refused: string[] }> {
  const refused: string[] = [];
  const receiver = await startReceiver((delivery, index) => {
    try {
      verifyDelivery({
        signing: ALT_DIALECT_SIGNING,
        headers: delivery.headers,
        rawBody: delivery.body,
        secrets,
        nowSeconds: Math.floor(Date.now() / 1000),
      });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      refused.push(error.code);
      return 401;
    }
    return answer(delivery, index);
  });
  running.push(receiver);
  return { receiver, refused };
}

async function altSandbox(receiver: Receiver, options: Partial<SandboxOptions> = {}): Promise<SandboxHandle> {
  const sandbox = await startSandbox({
    apiKeys: [KEY],
    webhookUrl: receiver.url,
    webhookSecret: ALT_SECRET,
    dialect: "alt",
    speed: FAST,
    seed: 3,
    ...options,
  });
  running.unshift(sandbox); // closed before the receiver
  return sandbox;
}

async function place(sandbox: SandboxHandle, order = validOrder()): Promise<string> {
  const answer = await createOrder(sandbox.url, order);
  expect(answer.status).toBe(200);
  return answer.json.data.correlationId;
}

async function deliveredAll(sandbox: SandboxHandle, correlationId: string) {
  return waitFor(
    async () => {
      const order = await sandbox.order(correlationId);
      return (
        order !== null &&
        order.eventsEmitted === order.eventsPlanned &&
        order.events.every((e) => e.delivery.state !== "pending") &&
        order
      );
    },
    8_000,
    "every event delivered",
  );
}

const byDelivery = (received: Received[]) => {
  const map = new Map<string, Received[]>();
  for (const delivery of received) {
    const id = delivery.headers["x-supplier-delivery"] as string;
    map.set(id, [...(map.get(id) ?? []), delivery]);
  }
  return map;
};

describe("the alt dialect over HTTP", () => {
  it("sends every event in the alt shape, signed so that verifyDelivery accepts it, in the order planned", async () => {
    const { receiver, refused } = await verifyingReceiver([ALT_SECRET]);
    const sandbox = await altSandbox(receiver);
    expect(sandbox.dialect).toBe("alt");
    const order = validOrder();
    const correlationId = await place(sandbox, order);
    const stored = await deliveredAll(sandbox, correlationId);

    expect(refused).toEqual([]);
    expect(receiver.received).toHaveLength(stored.eventsPlanned);
    const sent: AltEvent[] = receiver.received.map((delivery) =>
      altEventSchema.parse(JSON.parse(delivery.body)),
    );
    for (const [index, delivery] of receiver.received.entries()) {
      const event = sent[index] as AltEvent;
      expect(delivery.headers["content-type"]).toBe("application/json");
      expect(delivery.headers["x-supplier-delivery"]).toBe(event.eventId);
      expect(delivery.headers["x-supplier-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(delivery.headers["x-supplier-timestamp"]).toMatch(/^[0-9]{10}$/);
      expect(delivery.headers["webhook-signature"]).toBeUndefined();
      expect(event.order).toEqual({ correlationId, documentNumber: order.externalDocumentNumber });
    }
    // The same events as stored, in the same order, each the alt form of ours.
    expect(sent.map((e) => e.eventId)).toEqual(stored.events.map((e) => e.event.id));
    expect(sent).toEqual(stored.events.map((e) => toAltEvent(e.event)));
    const createdAt = sent.map((e) => e.createdAt);
    expect([...createdAt].sort((a, b) => a - b)).toEqual(createdAt);
    const codes = sent.flatMap((e) => ("status" in e ? [e.status.code] : []));
    expect(codes[0]).toBe("RECEIVED");
    expect(codes.at(-1)).toBe("DELIVERED");
    const states = sent.flatMap((e) => ("shipment" in e ? [e.shipment.state] : []));
    expect(states).toContain("SHIPPED");
    expect(states.at(-1)).toBe("DELIVERED");
  });

  it("is refused by a receiver holding another secret, or configured for our default signing", async () => {
    const { receiver, refused } = await verifyingReceiver(["not-the-secret-the-sandbox-has"]);
    const sandbox = await altSandbox(receiver, { retryScheduleMs: [0] });
    const correlationId = await place(
      sandbox,
      validOrder({ orderLines: [{ itemNumber: "A", quantity: 1 }] }),
    );
    const stored = await deliveredAll(sandbox, correlationId);
    expect(stored.events.every((e) => e.delivery.state === "failed")).toBe(true);
    expect(new Set(refused)).toEqual(new Set(["bad_signature"]));

    const delivery = receiver.received[0] as Received;
    expect(() =>
      verifyDelivery({
        signing: webhookSigningSchema.parse(undefined),
        headers: delivery.headers,
        rawBody: delivery.body,
        secrets: [SECRET],
        nowSeconds: Math.floor(Date.now() / 1000),
      }),
    ).toThrow(expect.objectContaining({ code: "missing_headers" }));
  });

  it("redelivers with the same delivery id and body, signed afresh, and duplicates them identically", async () => {
    const seen = new Map<string, number>();
    const { receiver, refused } = await verifyingReceiver([ALT_SECRET], (delivery) => {
      const id = delivery.headers["x-supplier-delivery"] as string;
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      return count === 1 ? 500 : 200;
    });
    const sandbox = await altSandbox(receiver, { duplicateRate: 1 });
    const correlationId = await place(
      sandbox,
      validOrder({ orderLines: [{ itemNumber: "A", quantity: 2 }] }),
    );
    const stored = await deliveredAll(sandbox, correlationId);
    await waitFor(() => receiver.received.length === 3 * stored.eventsPlanned, 15_000, "every duplicate");
    // The receiver answers a duplicate before the sandbox records that attempt: read the record once it has all three.
    const recorded = await waitFor(
      async () => {
        const order = await sandbox.order(correlationId);
        return order?.events.every((e) => e.delivery.attempts.length === 3) && order;
      },
      15_000,
      "every duplicate recorded",
    );

    expect(refused).toEqual([]);
    const deliveries = byDelivery(receiver.received);
    expect([...deliveries.keys()]).toEqual(stored.events.map((e) => e.event.id));
    for (const [id, list] of deliveries) {
      // First attempt (500), retry (200), deliberate duplicate: one body, whose eventId is the delivery id.
      expect(list).toHaveLength(3);
      expect(new Set(list.map((d) => d.body)).size).toBe(1);
      expect(JSON.parse(list[0]?.body as string).eventId).toBe(id);
    }
    for (const record of recorded.events) {
      expect(record.delivery.attempts.map((a) => [a.httpStatus, a.duplicate])).toEqual([
        [500, false],
        [200, false],
        [200, true],
      ]);
    }
  });

  it("signs with every secret while rotating, so a receiver holding only the new one accepts", async () => {
    const { receiver, refused } = await verifyingReceiver([ALT_SECRET_NEXT]);
    const sandbox = await altSandbox(receiver, { webhookSecret: [ALT_SECRET, ALT_SECRET_NEXT] });
    const correlationId = await place(
      sandbox,
      validOrder({ orderLines: [{ itemNumber: "A", quantity: 1 }] }),
    );
    await deliveredAll(sandbox, correlationId);
    expect(refused).toEqual([]);
    expect(receiver.received[0]?.headers["x-supplier-signature"]).toMatch(
      /^sha256=[0-9a-f]{64}, sha256=[0-9a-f]{64}$/,
    );
  });

  it("generates an HMAC secret when none is given and refuses one too weak, without echoing it", async () => {
    const { receiver } = await verifyingReceiver([ALT_SECRET]);
    const generated = await startSandbox({ webhookUrl: receiver.url, dialect: "alt" });
    running.unshift(generated);
    expect(generated.webhookSecrets).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);
    const attempt = startSandbox({ webhookUrl: receiver.url, dialect: "alt", webhookSecret: "hunter2" });
    await expect(attempt).rejects.toThrow(/at least 16/);
    await expect(attempt).rejects.not.toThrow(/hunter2/);
    await expect(
      startSandbox({ webhookUrl: receiver.url, dialect: "other" as "alt", webhookSecret: ALT_SECRET }),
    ).rejects.toThrow(/dialect must be "default" or "alt"/);
  });
});

describe("the default dialect", () => {
  it("sends our event format byte for byte, with only the Standard Webhooks signature headers", async () => {
    const receiver = await startReceiver(() => 204);
    running.push(receiver);
    const sandbox = await startSandbox({
      apiKeys: [KEY],
      webhookUrl: receiver.url,
      webhookSecret: SECRET,
      speed: FAST,
      seed: 3,
    });
    running.unshift(sandbox);
    expect(sandbox.dialect).toBe("default");
    const correlationId = await place(
      sandbox,
      validOrder({ orderLines: [{ itemNumber: "A", quantity: 1 }] }),
    );
    const stored = await deliveredAll(sandbox, correlationId);
    expect(receiver.received.map((d) => d.body)).toEqual(stored.events.map((e) => JSON.stringify(e.event)));
    for (const delivery of receiver.received) {
      expect(
        Object.keys(delivery.headers).filter((h) => h.startsWith("webhook-") || h.startsWith("x-")),
      ).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    }
  });

  it("encodes an event as JSON.stringify of it, and the alt dialect maps cancellations, reasons and problems", () => {
    const event: SupplierEvent = {
      id: "evt_000000000000000000000001",
      type: "order.status_changed",
      occurredAt: "2026-11-18T11:06:40.123+00:00",
      correlationId: "0b9f0c8e-3c1e-4d8e-9a4b-6f1f2a3b4c5d",
      externalDocumentNumber: "PO-1",
      data: { status: "cancelled", previousStatus: "picked", reason: "Out of stock" },
    };
    expect(encodeEvent("default", event)).toBe(JSON.stringify(event));
    expect(JSON.parse(encodeEvent("alt", event))).toEqual({
      eventId: event.id,
      eventType: "ORDER_CANCELLED",
      createdAt: 1_795_000_000_123,
      order: { correlationId: event.correlationId, documentNumber: "PO-1" },
      status: { code: "CANCELLED", previous: "PICKED", note: "Out of stock" },
    });
    const problem = toAltEvent({
      ...event,
      type: "order.shipping_updated",
      data: {
        parcel: { number: 2, of: 2 },
        carrier: "DPD",
        trackingNumber: "0123",
        trackingUrl: "https://track.example/0123",
        status: "exception",
        exceptionReason: "Address not found",
        lines: [{ itemNumber: "A", quantity: 1 }],
      },
    });
    expect(altEventSchema.parse(problem)).toMatchObject({
      eventType: "SHIPMENT",
      shipment: { parcel: { index: 2, total: 2 }, state: "EXCEPTION", problem: "Address not found" },
    });
    expect(problem).not.toHaveProperty("shipment.eta");
  });
});
