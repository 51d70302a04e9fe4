import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJobs, type Jobs, QUEUES } from "../../src/jobs/index.ts";
import { ednTemplate, fillEdn } from "../../src/orders/edn.ts";
import type { Store } from "../../src/store/db.ts";
import {
  type DocumentNumberTemplate,
  insertNumberedOrders,
  type NumberedNewOrder,
} from "../../src/store/repositories/numbered-orders.ts";
import { getOrder, insertOrder } from "../../src/store/repositories/orders.ts";
import { currentValue, nextValues } from "../../src/store/repositories/sequences.ts";
import type { CreateOrderRequest } from "../../src/supplier/schema.ts";
import { openTestStore, TEST_BACKENDS } from "../helpers/db.ts";

const now = new Date("2026-11-25T09:00:00Z");

/** A ticket no other test of the file numbers. */
function ticket(): string {
  return `T${randomUUID().slice(0, 8)}`;
}

function order(
  documentNumber: DocumentNumberTemplate,
  overrides: Partial<NumberedNewOrder> = {},
): NumberedNewOrder {
  return {
    id: randomUUID(),
    profile: "Acme US",
    requestedBy: "U0AGENT01",
    source: "command",
    idempotencyKey: `view:${randomUUID()}`,
    request: { externalDocumentNumber: "stand-in", type: "Standard" } as CreateOrderRequest,
    documentNumber,
    ...overrides,
  };
}

describe.each(TEST_BACKENDS)("orders numbered and stored in one statement on %s", (backend) => {
  let store: Store;
  let jobs: Jobs;

  beforeAll(async () => {
    store = await openTestStore(backend);
    jobs = createJobs({ store, pollIntervalMs: 60_000 });
    await jobs.start();
  });

  afterAll(async () => {
    await jobs.stop({ graceMs: 100 });
    await store.close();
  });

  const storeAll = (orders: NumberedNewOrder[]) =>
    jobs.sendManyWithin(
      QUEUES.placeOrder,
      orders.map((o) => ({ data: { orderId: o.id }, id: o.id })),
      (insert) => insertNumberedOrders(store, orders, insert),
    );

  it("numbers each counter's orders in the order given, writes the number into the request, and enqueues their jobs", async () => {
    const [a, b] = [ticket(), ticket()];
    const t = (tk: string) => ednTemplate("{ticket}-{seq}", { ticket: tk, profile: "Acme US", now });
    const orders = [
      order(t(a), { slackTeamId: "T1", slackChannelId: "C1", slackThreadTs: "1.2" }),
      order(t(b), { workflow: { functionExecutionId: "Fx1" }, draft: { ticket: b } }),
      order(t(a), { customerReference: a }),
      order(t(a)),
    ];
    const stored = await storeAll(orders);
    expect(stored?.map((o) => o.externalDocumentNumber)).toEqual([`${a}-1`, `${b}-1`, `${a}-2`, `${a}-3`]);
    for (const [i, o] of (stored ?? []).entries()) {
      expect(o.id).toBe(orders[i]?.id);
      expect(o.status).toBe("queued");
      expect(o.request.externalDocumentNumber).toBe(o.externalDocumentNumber);
      // What was returned is what a read gives.
      expect(await getOrder(store, o.id)).toEqual(o);
      expect((await jobs.getJob(QUEUES.placeOrder, o.id))?.data).toEqual({ orderId: o.id });
    }
  });

  it("renders numbers in SQL exactly as fillEdn does, past a placeholder's width and with several placeholders", async () => {
    const template = ednTemplate("{seq:3}/{ticket}-{seq}.{seq:2}", {
      ticket: ticket(),
      profile: "Acme US",
      now,
    });
    await nextValues(store, new Map([[template.counter, 998]]));
    const stored = await storeAll([order(template), order(template), order(template)]);
    expect(stored?.map((o) => o.externalDocumentNumber)).toEqual(
      [999, 1000, 1001].map((n) => fillEdn(template, n)),
    );
  });

  it("writes nothing, and uses up no number, when an order's submission was stored before", async () => {
    const template = ednTemplate("{ticket}-{seq}", { ticket: ticket(), profile: "Acme US", now });
    const repeated = order(template);
    await insertOrder(store, { ...repeated, id: randomUUID(), externalDocumentNumber: "typed-1" });
    const fresh = order(template);
    expect(await storeAll([fresh, repeated])).toBeNull();
    expect(await currentValue(store, template.counter)).toBe(0);
    expect(await getOrder(store, fresh.id)).toBeNull();
    expect(await jobs.getJob(QUEUES.placeOrder, fresh.id)).toBeNull();
  });

  it("writes nothing when a generated number was typed by an agent earlier in the same profile", async () => {
    const tk = ticket();
    const template = ednTemplate("{ticket}-{seq}", { ticket: tk, profile: "Acme US", now });
    await insertOrder(store, { ...order(template), externalDocumentNumber: `${tk}-2` });
    const orders = [order(template), order(template)];
    expect(await storeAll(orders)).toBeNull();
    expect(await currentValue(store, template.counter)).toBe(0);
    for (const o of orders) expect(await getOrder(store, o.id)).toBeNull();
  });
});
