/**
 * A date notice Slack took while its answer was lost is found in the thread by the retry, not posted twice, whatever
 * the app's clock says: the retry looks through the thread from the moment the post was attempted, which is compared
 * with Slack's timestamps, so it is recorded by the database's clock as every other post's attempt is. Here the
 * app's clock runs an hour ahead of it. Over the real wire (signed webhooks, the fake Slack Web API, a real store).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/db.ts";
import { insertOrder, markPlaced, setOriginMessage } from "../../src/store/repositories/orders.ts";
import { validOrder } from "../../tools/example-order.ts";
import { openTestStore } from "../helpers/db.ts";
import { deliver, type Harness, ORDERS_CHANNEL, shippingEvent, startHarness, until } from "./support.ts";

const HOUR = 3_600_000;

let store: Store;
let h: Harness;

beforeAll(async () => {
  store = await openTestStore();
  h = await startHarness(store, { now: () => new Date(Date.now() + HOUR) });
});

afterAll(async () => {
  await h?.close();
  await store?.close();
});

describe("a date notice whose answer Slack lost", () => {
  it("is posted once: the retry finds it in the thread", async () => {
    const orderId = randomUUID();
    const correlationId = randomUUID();
    const edn = `OD-${orderId.slice(0, 8)}`;
    const { order } = await insertOrder(store, {
      id: orderId,
      profile: "default",
      externalDocumentNumber: edn,
      customerReference: "ONB-9",
      requestedBy: "U0AGENT01",
      source: "command",
      status: "placing",
      request: validOrder({ externalDocumentNumber: edn }),
      neededBy: "2026-12-07",
    });
    const parent = h.present.parent(order);
    const { ts } = await h.slack.postMessage({
      channel: ORDERS_CHANNEL,
      text: parent?.text ?? "order",
      blocks: parent?.blocks ?? [],
    });
    await setOriginMessage(store, orderId, { channelId: ORDERS_CHANNEL, messageTs: ts });
    await markPlaced(store, orderId, { correlationId, placedEarlier: false });

    h.fake.loseAnswerNext("chat.postMessage", 1, { text: "At risk" });
    const slip = shippingEvent(correlationId, "2026-11-30T09:00:00Z", { estimatedDelivery: "2026-12-10" });
    expect((await deliver(h.url, slip)).status).toBeLessThan(300);
    const posted = await until(
      async () =>
        (
          await store.query(
            "SELECT posted_at FROM order_date_notices WHERE order_id = $1 AND kind = 'at_risk'",
            [orderId],
          )
        ).rows,
      (rows) => rows[0]?.posted_at != null,
      "the notice recorded as posted",
    );
    expect(posted).toHaveLength(1);
    expect(h.fake.thread(ORDERS_CHANNEL, ts).filter((m) => m.text.includes("At risk"))).toHaveLength(1);
  });
});
