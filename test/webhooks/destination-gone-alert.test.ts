/**
 * The "updates cannot be posted" admin alert (channel archived, bot removed) counts as sent only once it went
 * out: when the alert itself fails, the order's next run sends it; once sent, it is not sent again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminAlert } from "../../src/orders/ports.ts";
import { ChannelPacer } from "../../src/orders/updates/pacer.ts";
import { createPostUpdateWorker } from "../../src/orders/updates/post-update.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { getTestStore } from "../helpers/db.ts";
import { type Harness, NOW, placeOrder, startHarness, statusEvent, storeEventWithoutJob } from "./support.ts";

let store: Store;
let h: Harness;

beforeAll(async () => {
  store = await getTestStore();
  h = await startHarness(store);
});
afterAll(async () => {
  await h?.close();
});

describe("the admin alert for updates that cannot be posted", () => {
  it("is retried by the order's next run when it failed, and sent once", async () => {
    const channel = "C0GONE01";
    h.fake.addChannel({ id: channel, name: "closed-project" });
    const o = await placeOrder(h, { channel });
    h.fake.setArchived(channel, true);
    // Stored without a job of its own: this test runs the worker itself.
    const e = statusEvent(o.correlationId, "validated", "2026-11-24T08:01:00Z");
    await storeEventWithoutJob(store, e);

    const sent: AdminAlert[] = [];
    let failuresLeft = 1;
    const worker = createPostUpdateWorker({
      store,
      slack: h.slack,
      present: h.present,
      pacer: new ChannelPacer({ perSecond: 50, burst: 50 }),
      now: () => NOW,
      alertAdmins: async (alert) => {
        if (failuresLeft-- > 0) throw new Error("the admin channel could not be reached");
        sent.push(alert);
      },
    });

    await expect(worker.postOrderUpdates(o.orderId)).rejects.toThrow();
    expect(sent).toHaveLength(0);
    expect((await getEvent(store, e.id))?.postError).toMatchObject({
      slackError: "is_archived",
      alerted: false,
    });

    await expect(worker.postOrderUpdates(o.orderId)).rejects.toThrow();
    expect(sent.map((a) => a.key)).toEqual([`updates-destination-gone:${o.orderId}:is_archived`]);
    expect((await getEvent(store, e.id))?.postError).toMatchObject({
      slackError: "is_archived",
      alerted: true,
    });

    await expect(worker.postOrderUpdates(o.orderId)).rejects.toThrow();
    expect(sent).toHaveLength(1);
    expect((await getEvent(store, e.id))?.postedAt).toBeNull();
  });
});
