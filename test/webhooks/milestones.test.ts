/**
 * What an order's thread shows (`updates: milestones`, the default, or `all`) and what also goes to the
 * channel, over the real wire: signed webhook deliveries to our receiver, the post-update worker on the job
 * queue, the fake Slack. The event sequences are the sandbox's timeline (src/sandbox/fulfilment.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UpdatesVerbosity } from "../../src/orders/updates/verbosity.ts";
import { STATUS_LINE_BLOCK_ID } from "../../src/slack/blocks/updates/status-line.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { getOrder } from "../../src/store/repositories/orders.ts";
import { statusLine } from "../../tools/fake-slack/index.ts";
import { getTestStore } from "../helpers/db.ts";
import {
  deliver,
  type Harness,
  ORDERS_CHANNEL,
  placeOrder,
  shippingEvent,
  startHarness,
  statusEvent,
  type TestOrder,
  until,
} from "./support.ts";

let store: Store;
let h: Harness;
/** The verbosity of every order's thread; a test switches it (the customer file's `updates`). */
let verbosity: UpdatesVerbosity = "milestones";

beforeAll(async () => {
  store = await getTestStore();
  // Deliveries sent back to back are sorted within the settle delay before anything is posted.
  h = await startHarness(store, { settleMs: 600, updates: () => verbosity });
});
afterAll(async () => {
  await h?.close();
});

const at = (minute: number) => new Date(Date.UTC(2026, 10, 24, 8, minute)).toISOString();
type Event = { id: string };

function parcel(o: TestOrder, minute: number, number: number, of: number, status: string) {
  return shippingEvent(o.correlationId, at(minute), {
    parcel: { number, of },
    trackingNumber: `TRK-${number}`,
    trackingUrl: `https://track.example.com/TRK-${number}`,
    status,
  });
}

/** The sandbox's events for a one-parcel order, received to delivered (10 events). */
function oneParcel(o: TestOrder): Event[] {
  const s = (minute: number, status: string) => statusEvent(o.correlationId, status, at(minute));
  return [
    s(0, "received"),
    s(1, "validated"),
    s(2, "in_fulfilment"),
    s(3, "picked"),
    s(4, "packed"),
    parcel(o, 5, 1, 1, "shipped"),
    s(6, "shipped"),
    parcel(o, 7, 1, 1, "out_for_delivery"),
    parcel(o, 8, 1, 1, "delivered"),
    s(9, "delivered"),
  ];
}

/** The sandbox's events for a three-parcel order (17 events); parcel 3 arrives before parcel 2. */
function threeParcels(o: TestOrder): Event[] {
  const s = (minute: number, status: string) => statusEvent(o.correlationId, status, at(minute));
  return [
    s(0, "received"),
    s(1, "validated"),
    s(2, "in_fulfilment"),
    s(3, "picked"),
    s(4, "packed"),
    parcel(o, 5, 1, 3, "shipped"),
    s(6, "partially_shipped"),
    parcel(o, 7, 2, 3, "shipped"),
    parcel(o, 8, 3, 3, "shipped"),
    s(9, "shipped"),
    parcel(o, 10, 1, 3, "out_for_delivery"),
    parcel(o, 11, 2, 3, "out_for_delivery"),
    parcel(o, 12, 1, 3, "delivered"),
    parcel(o, 13, 3, 3, "out_for_delivery"),
    parcel(o, 14, 3, 3, "delivered"),
    parcel(o, 15, 2, 3, "delivered"),
    s(16, "delivered"),
  ];
}

async function deliverAll(events: Event[]) {
  const answers = await Promise.all(events.map((e) => deliver(h.url, e)));
  expect(answers.map((r) => r.status)).toEqual(events.map(() => 200));
}

/** Waits until every event is handled (replied to, or kept out of the thread), then reads the thread. */
async function handled(o: TestOrder, events: Event[]) {
  await until(
    () => Promise.all(events.map((e) => getEvent(store, e.id))),
    (stored) => stored.every((e) => e?.postedAt),
    "every event handled",
  );
  const thread = h.fake.thread(ORDERS_CHANNEL, o.ts);
  return {
    thread,
    texts: thread.map((m) => m.text),
    broadcasts: thread.filter((m) => m.replyBroadcast).map((m) => m.text),
  };
}

function parentStatus(o: TestOrder): string {
  const parent = h.fake.message(ORDERS_CHANNEL, o.ts);
  return parent ? (statusLine(h.fake.workspace, parent, STATUS_LINE_BLOCK_ID) ?? "") : "";
}

describe("updates: milestones (the default)", () => {
  it("replies three times for a one-parcel order (placed, shipped, delivered) and sends the delivery to the channel once", async () => {
    verbosity = "milestones";
    const o = await placeOrder(h);
    const events = oneParcel(o);
    await deliverAll(events);
    const { thread, texts, broadcasts } = await handled(o, events);

    expect(texts).toHaveLength(3);
    expect(texts[0]).toContain("Placed with the supplier");
    expect(JSON.stringify(thread[0]?.blocks)).toContain(o.correlationId);
    expect(texts[1]).toContain("Parcel shipped with DHL, tracking TRK-1");
    expect(JSON.stringify(thread[1]?.blocks)).toContain("<https://track.example.com/TRK-1|TRK-1>");
    expect(texts[2]).toContain("Parcel delivered");
    expect(broadcasts).toEqual([texts[2]]);
    // Every other event still moved the order: the status line and the store show where it is.
    expect((await getOrder(store, o.orderId))?.status).toBe("delivered");
    await until(
      () => parentStatus(o),
      (line) => line.includes("Delivered"),
      "the status line shows Delivered",
    );
    const stored = await Promise.all(events.map((e) => getEvent(store, e.id)));
    expect(stored.filter((e) => e?.replyTs === null)).toHaveLength(7);
    expect(stored.map((e) => e?.replyMilestone).filter(Boolean)).toEqual(["placed", "shipped", "delivered"]);
  });

  it("replies five times for a three-parcel order (placed, each parcel shipped, delivered) with one broadcast", async () => {
    verbosity = "milestones";
    const o = await placeOrder(h);
    const events = threeParcels(o);
    await deliverAll(events);
    const { texts, broadcasts } = await handled(o, events);

    expect(texts).toHaveLength(5);
    expect(texts[1]).toContain("Parcel 1 of 3 shipped");
    expect(texts[2]).toContain("Parcel 2 of 3 shipped");
    expect(texts[3]).toContain("Parcel 3 of 3 shipped");
    // The last parcel to arrive (parcel 2) announces the delivery; the order's own "delivered" adds nothing.
    expect(texts[4]).toContain("Parcel 2 of 3 delivered");
    expect(broadcasts).toEqual([texts[4]]);
  });

  it("announces the order's delivery when it is handled before the last parcel's, and not again for the parcel", async () => {
    verbosity = "milestones";
    const o = await placeOrder(h);
    const first = [
      parcel(o, 5, 1, 2, "shipped"),
      parcel(o, 6, 2, 2, "shipped"),
      parcel(o, 8, 1, 2, "delivered"),
      statusEvent(o.correlationId, "delivered", at(10)),
    ];
    await deliverAll(first);
    await handled(o, first);
    // The supplier's last parcel update comes late.
    const late = parcel(o, 9, 2, 2, "delivered");
    await deliverAll([late]);
    const { texts, broadcasts } = await handled(o, [...first, late]);
    expect(texts).toHaveLength(3);
    expect(texts[2]).toContain("Delivered");
    expect(broadcasts).toEqual([texts[2]]);
  });

  it("replies and broadcasts for every delivery exception and for a cancellation", async () => {
    verbosity = "milestones";
    const o = await placeOrder(h);
    const events = [
      parcel(o, 5, 1, 1, "shipped"),
      shippingEvent(o.correlationId, at(6), { status: "exception", exceptionReason: "Address not found" }),
      shippingEvent(o.correlationId, at(7), { status: "exception", exceptionReason: "Recipient absent" }),
      statusEvent(o.correlationId, "cancelled", at(8), {
        data: { status: "cancelled", reason: "Returned to sender" },
      }),
    ];
    await deliverAll(events);
    const { texts, broadcasts } = await handled(o, events);
    expect(texts).toHaveLength(4);
    expect(broadcasts).toEqual(texts.slice(1));
    expect(texts[1]).toContain("Address not found");
    expect(texts[2]).toContain("Recipient absent");
    expect(texts[3]).toContain("Cancelled");
  });

  it("replies for a shipped status when the supplier sends no parcel updates, so a shipment is never silent", async () => {
    verbosity = "milestones";
    const o = await placeOrder(h);
    const events = [
      statusEvent(o.correlationId, "packed", at(4)),
      statusEvent(o.correlationId, "shipped", at(5)),
    ];
    await deliverAll(events);
    const { texts } = await handled(o, events);
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain("Shipped");
  });

  it("shows an event it cannot classify, since it may be a rejection", async () => {
    verbosity = "milestones";
    const o = await placeOrder(h);
    const event = {
      id: `evt_rejected_${o.orderId}`,
      type: "order.rejected",
      occurredAt: at(3),
      correlationId: o.correlationId,
      data: { reason: "Credit limit reached" },
    };
    await deliverAll([event]);
    const { thread } = await handled(o, [event]);
    expect(thread).toHaveLength(1);
    expect(JSON.stringify(thread[0]?.blocks)).toContain("Credit limit reached");
  });
});

describe("updates: all", () => {
  it("replies for every event of a one-parcel order and still sends the delivery to the channel once", async () => {
    verbosity = "all";
    const o = await placeOrder(h);
    const events = oneParcel(o);
    await deliverAll(events);
    const { texts, broadcasts } = await handled(o, events);
    expect(texts).toHaveLength(10);
    expect(broadcasts).toEqual([texts[8]]);
    expect(texts[8]).toContain("Parcel delivered");
  });

  it("shows the events that follow in full once a thread is switched from milestones to all", async () => {
    verbosity = "milestones";
    const o = await placeOrder(h);
    const events = threeParcels(o);
    const before = events.slice(0, 10); // up to the order's "shipped"
    await deliverAll(before);
    expect((await handled(o, before)).texts).toHaveLength(4);

    verbosity = "all";
    const after = events.slice(10);
    await deliverAll(after);
    const { texts, broadcasts } = await handled(o, events);
    expect(texts).toHaveLength(4 + after.length);
    expect(broadcasts).toHaveLength(1);
  });
});
