/**
 * Webhook delivery from the sandbox to a real receiver: Standard Webhooks signatures checked by the reference
 * `standardwebhooks` package, our event contract, per-order order, retries with stable ids, and the faults.
 * A speed of 60 000 plays an order's ~40 realistic minutes in ~40 ms and the retry schedule in milliseconds.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type SandboxHandle, type SandboxOptions, startSandbox } from "../../src/sandbox/sandbox.ts";
import { parseSupplierEvent, type SupplierEvent } from "../../src/supplier/events.ts";
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
const running: Array<SandboxHandle | Receiver> = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});
afterAll(() => dispatcher.close());

async function setup(
  answer: Parameters<typeof startReceiver>[0],
  options: Partial<SandboxOptions> = {},
): Promise<{ sandbox: SandboxHandle; receiver: Receiver }> {
  const receiver = await startReceiver(answer);
  running.push(receiver);
  const sandbox = await startSandbox({
    apiKeys: [KEY],
    webhookUrl: receiver.url,
    webhookSecret: SECRET,
    speed: FAST,
    seed: 3,
    ...options,
  });
  running.unshift(sandbox); // closed before the receiver
  return { sandbox, receiver };
}

const events = (received: Received[]): SupplierEvent[] => received.map((r) => JSON.parse(r.body));

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

describe("webhook deliveries", () => {
  it("signs every delivery so the reference standardwebhooks package verifies it, and sends our event schema", async () => {
    const { sandbox, receiver } = await setup(() => 204);
    const correlationId = await place(sandbox);
    const order = await deliveredAll(sandbox, correlationId);
    expect(receiver.received).toHaveLength(order.eventsPlanned);
    const verifier = new Webhook(SECRET);
    for (const delivery of receiver.received) {
      const payload = verifier.verify(
        delivery.body,
        delivery.headers as Record<string, string>,
      ) as SupplierEvent;
      expect(delivery.headers["content-type"]).toBe("application/json");
      expect(delivery.headers["webhook-id"]).toBe(payload.id);
      expect(payload.correlationId).toBe(correlationId);
      expect(parseSupplierEvent(payload).kind).not.toBe("unknown");
    }
    expect(() =>
      new Webhook("whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=").verify(
        receiver.received[0]?.body as string,
        receiver.received[0]?.headers as Record<string, string>,
      ),
    ).toThrow();
    const statuses = events(receiver.received).flatMap((e) =>
      e.type === "order.status_changed" ? [(e.data as { status: string }).status] : [],
    );
    expect(statuses[0]).toBe("received");
    expect(statuses.at(-1)).toBe("delivered");
    expect(order.status).toBe("delivered");
    expect(
      order.events.every((e) => e.delivery.state === "delivered" && e.delivery.attempts.length === 1),
    ).toBe(true);
  });

  it("retries a failing receiver with the same event id, and records every attempt", async () => {
    // The first two deliveries of every event fail (500, then 503), the third succeeds.
    const seen = new Map<string, number>();
    const { sandbox, receiver } = await setup((delivery) => {
      const id = delivery.headers["webhook-id"] as string;
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      return count === 1 ? 500 : count === 2 ? 503 : 200;
    });
    const correlationId = await place(
      sandbox,
      validOrder({ orderLines: [{ itemNumber: "A", quantity: 1 }] }),
    );
    const order = await deliveredAll(sandbox, correlationId);
    expect(order.events.every((e) => e.delivery.state === "delivered")).toBe(true);
    for (const record of order.events) {
      expect(record.delivery.attempts.map((a) => a.httpStatus)).toEqual([500, 503, 200]);
      expect(record.delivery.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    }
    // Each event went out three times with one id, and is signed afresh each time.
    const byId = new Map<string, Received[]>();
    for (const delivery of receiver.received) {
      const id = delivery.headers["webhook-id"] as string;
      byId.set(id, [...(byId.get(id) ?? []), delivery]);
    }
    expect([...byId.values()].every((list) => list.length === 3)).toBe(true);
    for (const list of byId.values()) {
      expect(new Set(list.map((d) => d.body)).size).toBe(1);
      for (const d of list)
        expect(() => new Webhook(SECRET).verify(d.body, d.headers as Record<string, string>)).not.toThrow();
    }
  });

  it("delivers an order's events in order, one at a time, even when the receiver is slow and orders overlap", async () => {
    let inFlight = 0;
    let maxInFlightPerOrder = 0;
    const perOrder = new Map<string, number>();
    const { sandbox, receiver } = await setup(async (delivery) => {
      const { correlationId } = JSON.parse(delivery.body) as SupplierEvent;
      const now = (perOrder.get(correlationId) ?? 0) + 1;
      perOrder.set(correlationId, now);
      maxInFlightPerOrder = Math.max(maxInFlightPerOrder, now);
      inFlight++;
      await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 6));
      inFlight--;
      perOrder.set(correlationId, (perOrder.get(correlationId) ?? 1) - 1);
      return 200;
    });
    const ids = await Promise.all([place(sandbox), place(sandbox), place(sandbox)]);
    await Promise.all(ids.map((id) => deliveredAll(sandbox, id)));
    expect(maxInFlightPerOrder).toBe(1);
    expect(inFlight).toBe(0);
    for (const id of ids) {
      const stored = await sandbox.order(id);
      const sent = events(receiver.received).filter((e) => e.correlationId === id);
      expect(sent.map((e) => e.id)).toEqual(stored?.events.map((e) => e.event.id));
      const times = sent.map((e) => Date.parse(e.occurredAt));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    }
  });

  it("holds an order's next event until the previous one is delivered", async () => {
    let failing = true;
    const { sandbox, receiver } = await setup(() => (failing ? 500 : 200), {
      // The retry waits one day (1.44 s at this speed): the whole plan (~40 ms) is emitted while the first
      // event is still waiting, even on a loaded machine. Twenty minutes (20 ms) raced the emission.
      retryScheduleMs: [0, 24 * 3_600_000, 24 * 3_600_000],
    });
    const correlationId = await place(sandbox);
    await waitFor(async () => {
      const order = await sandbox.order(correlationId);
      return order?.eventsEmitted === order?.eventsPlanned;
    });
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    failing = false;
    await deliveredAll(sandbox, correlationId);
    const firstOfEach = new Map<string, number>();
    receiver.received.forEach((r, i) => {
      const id = r.headers["webhook-id"] as string;
      if (!firstOfEach.has(id)) firstOfEach.set(id, i);
    });
    const stored = await sandbox.order(correlationId);
    const order = [...firstOfEach.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
    expect(order).toEqual(stored?.events.map((e) => e.event.id));
  });

  it("retries a receiver that does not answer within the per-attempt timeout", async () => {
    let calls = 0;
    const { sandbox } = await setup(
      async () => {
        calls++;
        if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 500));
        return 200;
      },
      { deliveryTimeoutMs: 100 },
    );
    const correlationId = await place(
      sandbox,
      validOrder({ orderLines: [{ itemNumber: "A", quantity: 1 }] }),
    );
    const order = await deliveredAll(sandbox, correlationId);
    const first = order.events[0]?.delivery.attempts ?? [];
    expect(first[0]).toMatchObject({ httpStatus: null, error: "no answer within 100 ms" });
    expect(first[1]).toMatchObject({ httpStatus: 200 });
  });

  it("marks an event failed when the schedule runs out, then moves on to the order's next event", async () => {
    const { sandbox } = await setup(() => 500, { retryScheduleMs: [0, 1_000] });
    const correlationId = await place(
      sandbox,
      validOrder({ orderLines: [{ itemNumber: "A", quantity: 1 }] }),
    );
    const order = await deliveredAll(sandbox, correlationId);
    expect(order.events.every((e) => e.delivery.state === "failed" && e.delivery.attempts.length === 2)).toBe(
      true,
    );
  });

  it("delivers events twice at --duplicate-rate 1, with the same webhook-id", async () => {
    const { sandbox, receiver } = await setup(() => 200, { duplicateRate: 1 });
    const correlationId = await place(sandbox);
    const order = await deliveredAll(sandbox, correlationId);
    await waitFor(() => receiver.received.length === 2 * order.eventsPlanned);
    const counts = new Map<string, number>();
    for (const r of receiver.received)
      counts.set(r.headers["webhook-id"] as string, (counts.get(r.headers["webhook-id"] as string) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 2)).toBe(true);
    const attempts = (await sandbox.order(correlationId))?.events[0]?.delivery.attempts;
    expect(attempts?.map((a) => a.duplicate)).toEqual([false, true]);
  });

  it("swaps adjacent events of an order at --reorder (rate 1)", async () => {
    const { sandbox, receiver } = await setup(() => 200, { reorderRate: 1 });
    const correlationId = await place(sandbox);
    const stored = await deliveredAll(sandbox, correlationId);
    const emitted = stored.events.map((e) => e.event.id);
    const sent = receiver.received.map((r) => r.headers["webhook-id"] as string);
    expect(sent).toHaveLength(emitted.length);
    expect(sent.slice(0, 4)).toEqual([emitted[1], emitted[0], emitted[3], emitted[2]]);
    expect(new Set(sent)).toEqual(new Set(emitted));
  });

  it("records events without delivering them when no webhook URL is set", async () => {
    const sandbox = await startSandbox({ apiKeys: [KEY], speed: FAST });
    running.push(sandbox);
    const correlationId = await place(sandbox);
    const order = await waitFor(async () => {
      const o = await sandbox.order(correlationId);
      return o?.status === "delivered" && o;
    });
    expect(
      order.events.every((e) => e.delivery.state === "not_configured" && e.delivery.attempts.length === 0),
    ).toBe(true);
  });
});
