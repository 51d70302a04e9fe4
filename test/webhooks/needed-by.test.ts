import { randomUUID } from "node:crypto";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countDateNotice, countDelivery, createDateMetrics } from "../../src/metrics-dates.ts";
import { onTimeThisMonth } from "../../src/orders/dates/on-time.ts";
import { buildHomeView } from "../../src/slack/blocks/home.ts";
import type { Store } from "../../src/store/db.ts";
import { listNotices } from "../../src/store/repositories/order-risk.ts";
import { getOrder, insertOrder, markPlaced, setOriginMessage } from "../../src/store/repositories/orders.ts";
import { validOrder } from "../../tools/example-order.ts";
import { getTestStore } from "../helpers/db.ts";
import {
  deliver,
  type Harness,
  ORDERS_CHANNEL,
  runsDone,
  shippingEvent,
  startHarness,
  statusEvent,
} from "./support.ts";

let store: Store;
let h: Harness;

const registry = new Registry();
const metrics = createDateMetrics([registry]);

beforeAll(async () => {
  store = await getTestStore();
  h = await startHarness(store, {
    counting: {
      onDateNotice: (order, notice) => countDateNotice(metrics, order, notice),
      onDelivered: (order) => countDelivery(metrics, order),
    },
  });
});

/** The histogram's observations as `{ sum, count }` for the profile. */
async function observed(name: string): Promise<{ sum: number; count: number }> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = (suffix: string) =>
    (metric?.values ?? []).find((v) => (v as { metricName?: string }).metricName === `${name}${suffix}`)
      ?.value ?? 0;
  return { sum: value("_sum"), count: value("_count") };
}
afterAll(async () => {
  await h?.close();
});

const REQUESTER = "U0AGENT01";

/** An order needed by Mon 7 Dec 2026, placed from Slack (its message in the channel). */
async function placeNeededBy(neededBy = "2026-12-07") {
  const orderId = randomUUID();
  const correlationId = randomUUID();
  const edn = `OD-${orderId.slice(0, 8)}`;
  const { order } = await insertOrder(store, {
    id: orderId,
    profile: "default",
    externalDocumentNumber: edn,
    customerReference: "ONB-7",
    requestedBy: REQUESTER,
    source: "command",
    status: "placing",
    request: validOrder({ externalDocumentNumber: edn }),
    neededBy,
  });
  const parent = h.present.parent(order);
  const { ts } = await h.slack.postMessage({
    channel: ORDERS_CHANNEL,
    text: parent?.text ?? "order",
    blocks: parent?.blocks ?? [],
  });
  await setOriginMessage(store, orderId, { channelId: ORDERS_CHANNEL, messageTs: ts });
  await markPlaced(store, orderId, { correlationId, placedEarlier: false });
  return { orderId, correlationId, ts };
}

const texts = (ts: string) => h.fake.thread(ORDERS_CHANNEL, ts).map((m) => m.text);
const dateNotices = (ts: string) => texts(ts).filter((t) => /At risk|Back on track|Delivered late/.test(t));

/** The supplier delivers `event` again: it is stored already, so it starts no run of its own. */
async function redeliver(event: { id: string }) {
  expect(await (await deliver(h.url, event)).json()).toMatchObject({ ok: true, duplicate: true });
}

async function openAtRiskItems(orderId: string): Promise<number> {
  const { rows } = await store.query(
    "SELECT count(*)::int AS n FROM attention_items WHERE kind = 'at_risk_order' AND subject = $1 AND resolved_at IS NULL",
    [orderId],
  );
  return rows[0]?.n as number;
}

describe("needed-by dates over the webhook", () => {
  it("says once that an order is at risk when the estimate slips, and once that it is back on track", async () => {
    const o = await placeNeededBy();
    // Slack answers the at-risk post late, as it does on a busy machine: the reply shows in the thread at once, the
    // DM follows only after the answer (the run's end is what to wait for).
    h.fake.answerLateNext("chat.postMessage", 300, 1, { channel: ORDERS_CHANNEL, text: "At risk" });
    const slip = shippingEvent(o.correlationId, "2026-11-30T09:00:00Z", { estimatedDelivery: "2026-12-10" });
    expect((await deliver(h.url, slip)).status).toBeLessThan(300);
    await runsDone(h, [slip]);
    // The supplier redelivers the same event: nothing more is said.
    await redeliver(slip);
    let order = await getOrder(store, o.orderId);
    expect(order).toMatchObject({ expectedDelivery: "2026-12-10", expectedDeliverySource: "supplier" });
    expect(order?.atRiskSince).toBeInstanceOf(Date);
    expect(await openAtRiskItems(o.orderId)).toBe(1);
    const atRisk = h.fake.thread(ORDERS_CHANNEL, o.ts).find((m) => /At risk/.test(m.text));
    expect(atRisk?.text).toContain("At risk: expected Thu 10 Dec, needed by Mon 7 Dec");
    expect(atRisk?.replyBroadcast).toBe(true);
    expect(
      h.fake.dm(REQUESTER).filter((m) => m.text.includes(`${order?.externalDocumentNumber}`)),
    ).toHaveLength(1);

    // The next estimate is in time again.
    const back = shippingEvent(o.correlationId, "2026-12-01T09:00:00Z", {
      estimatedDelivery: "2026-12-04",
      status: "in_transit",
    });
    expect((await deliver(h.url, back)).status).toBeLessThan(300);
    await runsDone(h, [back]);
    await redeliver(back);
    order = await getOrder(store, o.orderId);
    expect(order?.atRiskSince).toBeNull();
    expect(order?.expectedDelivery).toBe("2026-12-04");
    expect(await openAtRiskItems(o.orderId)).toBe(0);
    expect(dateNotices(o.ts)).toEqual([
      expect.stringContaining("At risk: expected Thu 10 Dec, needed by Mon 7 Dec"),
      expect.stringContaining("Back on track"),
    ]);
    expect((await listNotices(store, o.orderId)).map((n) => n.kind)).toEqual(["at_risk", "back_on_track"]);
  });

  it("records a delivery after the needed-by date as late by so many days, once", async () => {
    const o = await placeNeededBy();
    // The late notice is counted once Slack has answered its post, which shows in the thread before.
    h.fake.answerLateNext("chat.postMessage", 300, 1, { channel: ORDERS_CHANNEL, text: "Delivered late" });
    const delivered = statusEvent(o.correlationId, "delivered", "2026-12-09T15:00:00Z");
    expect((await deliver(h.url, delivered)).status).toBeLessThan(300);
    await runsDone(h, [delivered]);
    await redeliver(delivered);
    expect(dateNotices(o.ts)).toEqual([
      expect.stringContaining("Delivered late: 2 days after the needed-by date"),
    ]);
    const order = await getOrder(store, o.orderId);
    expect(order).toMatchObject({ deliveredOn: "2026-12-09", lateDays: 2 });
    expect(await observed("order_desk_delivery_days_from_needed_by")).toEqual({ sum: 2, count: 1 });
    expect(await observed("order_desk_delivery_days_late")).toEqual({ sum: 2, count: 1 });

    // The admins' App Home figure for December, and the export's columns.
    const december = await onTimeThisMonth(store, new Date("2026-12-20T12:00:00Z"));
    expect(december).toEqual([{ profile: "default", delivered: 1, onTime: 0 }]);
    const home = JSON.stringify(
      buildHomeView([], { items: [], counts: {} as never }, [], undefined, null, december),
    );
    expect(home).toContain("On time this month: default 0 of 1 (0%)");
    expect(await onTimeThisMonth(store, new Date("2026-11-20T12:00:00Z"))).toEqual([]);
  });

  it("ignores an estimate dated before its own update and an update without one", async () => {
    const o = await placeNeededBy();
    const events = [
      shippingEvent(o.correlationId, "2026-12-02T09:00:00Z", { estimatedDelivery: "2026-11-20" }),
      shippingEvent(o.correlationId, "2026-12-02T10:00:00Z", {
        estimatedDelivery: undefined,
        status: "in_transit",
      }),
    ];
    for (const e of events) expect((await deliver(h.url, e)).status).toBeLessThan(300);
    await runsDone(h, events);
    const order = await getOrder(store, o.orderId);
    expect(order).toMatchObject({ expectedDelivery: null, atRiskSince: null });
    expect(dateNotices(o.ts)).toEqual([]);
  });

  it("counts a delivery before the needed-by date as so many days early, once, and not as late", async () => {
    const before = await observed("order_desk_delivery_days_from_needed_by");
    const late = await observed("order_desk_delivery_days_late");
    const o = await placeNeededBy("2026-12-07");
    const delivered = statusEvent(o.correlationId, "delivered", "2026-12-04T15:00:00Z");
    expect((await deliver(h.url, delivered)).status).toBeLessThan(300);
    await runsDone(h, [delivered]);
    await redeliver(delivered);
    expect(await getOrder(store, o.orderId)).toMatchObject({ deliveredOn: "2026-12-04", lateDays: 0 });
    expect(await observed("order_desk_delivery_days_from_needed_by")).toEqual({
      sum: before.sum - 3,
      count: before.count + 1,
    });
    expect(await observed("order_desk_delivery_days_late")).toEqual(late);
    expect(dateNotices(o.ts)).toEqual([]);
  });
});
