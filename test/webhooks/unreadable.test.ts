/**
 * A supplier whose events are not in the shape the mapping expects, over the real wire, on every store: each
 * signed delivery is kept and answered 2xx, the admins get one alert for many, nothing reaches a thread; once
 * the mapping is corrected, reprocessing posts every update once, in the order the supplier says they happened,
 * and a redelivery of a reprocessed event changes nothing.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/db.ts";
import { findOpenAttention } from "../../src/store/repositories/attention.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import {
  compileEventMapping,
  DEFAULT_EVENT_MAPPING,
  type EventMapper,
  eventMappingSchema,
} from "../../src/supplier/event-mapping.ts";
import { reprocessUnreadable } from "../../src/webhooks/reprocess.ts";
import { getTestStore, TEST_BACKENDS } from "../helpers/db.ts";
import {
  ADMIN_CHANNEL,
  deliver,
  type Harness,
  ORDERS_CHANNEL,
  placeOrder,
  startHarness,
  type TestOrder,
  until,
} from "./support.ts";

/** The supplier's own shape: other names, the order nested, the time in milliseconds. */
function theirs(order: { correlationId: string }, code: string, minute: number, extra: object = {}) {
  return {
    eventId: `sup_${randomUUID()}`,
    eventType: "ORDER_STATUS",
    createdAt: Date.UTC(2026, 10, 24, 9, minute),
    order: { correlationId: order.correlationId },
    status: { code },
    ...extra,
  };
}

const THEIR_MAPPING = eventMappingSchema.parse({
  fields: {
    id: "eventId",
    type: "eventType",
    occurredAt: "createdAt",
    correlationId: "order.correlationId",
    externalDocumentNumber: "/order/documentNumber",
  },
  statusChanged: { status: "status.code", reason: "status.note" },
  types: { ORDER_STATUS: "statusChanged", ORDER_CANCELLED: "cancelled" },
  statuses: { VALIDATED: "validated", PICKED: "picked", PACKED: "packed", SHIPPED: "shipped" },
});

describe.each(TEST_BACKENDS)("deliveries the mapping cannot read (%s)", (backend) => {
  let store: Store;
  let h: Harness;
  let mapper: EventMapper = compileEventMapping(DEFAULT_EVENT_MAPPING);

  beforeAll(async () => {
    store = await getTestStore(backend);
    h = await startHarness(store, {
      attentionAlerts: true,
      // The customer file as it is at each moment of the test: wrong first, corrected later.
      receiver: { mapper: { map: (body, options) => mapper.map(body, options) } },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const replies = (o: TestOrder) => h.fake.thread(ORDERS_CHANNEL, o.ts).map((m) => m.text);
  const alertsAbout = () => h.fake.messages(ADMIN_CHANNEL).filter((m) => m.text.includes("cannot read"));

  it("keeps every signed delivery, alerts the admins once for the shape, and posts nothing; reprocessing then posts each once, in order", async () => {
    mapper = compileEventMapping(DEFAULT_EVENT_MAPPING);
    const order = await placeOrder(h);
    // Delivered out of order, each twice (the supplier retries), several at once.
    const events = [
      theirs(order, "PACKED", 3),
      theirs(order, "VALIDATED", 1),
      theirs(order, "PICKED", 2),
      theirs(order, "SHIPPED", 4),
    ];
    const answers = await Promise.all(
      [...events, ...events].map((e) => deliver(h.url, e, { id: e.eventId })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 202, 202, 202, 202]);
    // Without an id where the mapping looks, each is kept under its body's hash: once, redeliveries included.
    for (const e of events) expect(await keptFor(store, e.eventId)).toBe(1);
    for (const e of events) expect(await getEvent(store, e.eventId)).toBeNull();

    await until(alertsAbout, (a) => a.length === 1, "one admin alert about the unreadable deliveries");
    const alert = alertsAbout()[0];
    // The first one's field names and types, never its values.
    expect(alert?.text).toMatch(/eventId \(string\)/);
    expect(alert?.text).toMatch(/order\.correlationId \(string\)/);
    expect(alert?.text).not.toContain(order.correlationId);
    expect(alert?.text).not.toContain("PACKED");
    // More of the same shape: still one alert.
    const more = theirs(order, "PICKED", 5);
    expect((await deliver(h.url, more, { id: more.eventId })).status).toBe(202);
    expect(alertsAbout()).toHaveLength(1);
    expect(replies(order)).toEqual([]);

    // The mapping is corrected (the customer file, then a restart); the admin reprocesses.
    mapper = compileEventMapping(THEIR_MAPPING);
    const result = await reprocessUnreadable(
      { store, jobs: h.jobs, mapper, settleMs: 0 },
      { by: "U0ADMIN01", shapeKey: (await shapeOf(store, events[0]?.eventId ?? "")) ?? "" },
    );
    expect(result).toMatchObject({ read: 5, duplicates: 0, stillUnreadable: 0 });
    expect(result.resolved).toHaveLength(1);
    const posted = await until(
      () => replies(order),
      (r) => r.length >= 5,
      "five replies in the order's thread",
    );
    expect(posted.map((t) => t.replace(/^[^:]*: /, ""))).toEqual([
      "Status: Validated",
      "Status: Picked",
      "Status: Packed",
      "Status: Shipped",
      "Status: Picked",
    ]);

    // A redelivery of a reprocessed event changes nothing, and neither does reprocessing again.
    const again = await deliver(h.url, events[1] as object, { id: events[1]?.eventId ?? "" });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ duplicate: true });
    expect(await reprocessUnreadable({ store, jobs: h.jobs, mapper }, { by: "U0ADMIN01" })).toMatchObject({
      read: 0,
    });
    expect(replies(order)).toHaveLength(5);
  });

  it("tells the admins again, once, when reprocessing still cannot read a shape, with the reason it gives now", async () => {
    mapper = compileEventMapping(DEFAULT_EVENT_MAPPING);
    const order = await placeOrder(h);
    const odd = theirs(order, "TELEPORTED", 1, { flavour: "odd" });
    expect((await deliver(h.url, odd, { id: odd.eventId })).status).toBe(202);
    const shape = (await shapeOf(store, odd.eventId)) ?? "";
    await until(
      () => findOpenAttention(store, "unreadable_events", shape),
      (item) => item?.alertTs !== null && item !== null,
      "the shape's alert posted",
    );
    mapper = compileEventMapping(THEIR_MAPPING);
    const result = await reprocessUnreadable({ store, jobs: h.jobs, mapper }, { by: "U0ADMIN01" });
    expect(result.stillUnreadable).toBeGreaterThanOrEqual(1);
    expect(result.reasons.find((r) => r.shapeKey === shape)?.reason).toMatch(/TELEPORTED|statuses/);
    // Its item stays open (nobody clicked): no second alert.
    expect(result.opened.filter((i) => i.subject === shape)).toEqual([]);
    expect(replies(order)).toEqual([]);
  });

  it("matches an event that names only the order's document number to that order", async () => {
    mapper = compileEventMapping(
      eventMappingSchema.parse({
        fields: {
          id: "eventId",
          type: "eventType",
          occurredAt: "createdAt",
          externalDocumentNumber: "order.ref",
        },
        statusChanged: { status: "status.code" },
        types: { ORDER_STATUS: "statusChanged" },
        statuses: { PICKED: "picked" },
      }),
    );
    const order = await placeOrder(h);
    const event = {
      eventId: `sup_${randomUUID()}`,
      eventType: "ORDER_STATUS",
      createdAt: Date.UTC(2026, 10, 24, 9, 7),
      order: { ref: order.order.externalDocumentNumber },
      status: { code: "PICKED" },
    };
    const res = await deliver(h.url, event, { id: event.eventId });
    expect(res.status).toBe(200);
    expect(await getEvent(store, event.eventId)).toMatchObject({
      orderId: order.orderId,
      correlationId: `edn:${order.order.externalDocumentNumber}`,
    });
    await until(
      () => replies(order),
      (r) => r.length === 1,
      "the reply in the order's thread",
    );
  });
});

const HAS_ID = "position($1 in convert_from(body, 'UTF8')) > 0";

async function keptFor(store: Store, eventId: string): Promise<number> {
  const { rows } = await store.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM unreadable_events WHERE ${HAS_ID}`,
    [eventId],
  );
  return rows[0]?.n ?? 0;
}

async function shapeOf(store: Store, eventId: string): Promise<string | undefined> {
  const { rows } = await store.query<{ shape_key: string }>(
    `SELECT shape_key FROM unreadable_events WHERE ${HAS_ID}`,
    [eventId],
  );
  return rows[0]?.shape_key;
}
