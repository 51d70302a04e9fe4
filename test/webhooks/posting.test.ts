import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { alertPlainText } from "../../src/orders/ports.ts";
import { postUpdateJobId } from "../../src/orders/updates/enqueue.ts";
import { ChannelPacer } from "../../src/orders/updates/pacer.ts";
import { createPostUpdateWorker } from "../../src/orders/updates/post-update.ts";
import { readTracking } from "../../src/orders/updates/tracking.ts";
import { STATUS_LINE_BLOCK_ID } from "../../src/slack/blocks/updates/status-line.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { getOrder, insertOrder, markPlaced, setOriginMessage } from "../../src/store/repositories/orders.ts";
import { attachOrphanEvents, createOrphanSweeper } from "../../src/webhooks/orphans.ts";
import { validOrder } from "../../tools/example-order.ts";
import { DEFAULT_BOT_SCOPES, statusLine } from "../../tools/fake-slack/index.ts";
import { getTestStore, openTestStore } from "../helpers/db.ts";
import {
  deliver,
  type Harness,
  NOW,
  ORDERS_CHANNEL,
  placeOrder,
  shippingEvent,
  startHarness,
  statusEvent,
  storeEventWithoutJob,
  type TestOrder,
  until,
} from "./support.ts";

let store: Store;
let h: Harness;

beforeAll(async () => {
  store = await getTestStore();
  // A short settle delay: deliveries sent back to back are sorted before posting.
  h = await startHarness(store, { settleMs: 800 });
});
afterAll(async () => {
  await h?.close();
});

const at = (minute: number) => new Date(Date.UTC(2026, 10, 24, 8, minute)).toISOString();

/** A reply's fallback text without the order it names first ("TICKET-123 · order OD-…: "). */
function shown(m: { text: string }): string {
  return m.text.replace(/^TICKET-123 · order OD-[0-9a-f]{8}: /, "");
}

function replies(o: TestOrder) {
  return h.fake.thread(ORDERS_CHANNEL, o.ts);
}

async function repliesReach(o: TestOrder, n: number) {
  return until(
    () => replies(o),
    (r) => r.length >= n,
    `${n} replies in the order's thread`,
  );
}

function parentStatus(o: TestOrder): string {
  const parent = h.fake.message(ORDERS_CHANNEL, o.ts);
  if (!parent) throw new Error("no parent message");
  return statusLine(h.fake.workspace, parent, STATUS_LINE_BLOCK_ID) ?? "";
}

async function allPosted(ids: string[]) {
  return until(
    () => Promise.all(ids.map((id) => getEvent(store, id))),
    (events) => events.every((e) => e?.postedAt),
    "every event marked posted",
  );
}

describe("supplier events become threaded replies", () => {
  it("posts reordered deliveries in occurredAt order, once each, and the status line shows the latest state", async () => {
    const o = await placeOrder(h);
    const validated = statusEvent(o.correlationId, "validated", at(1));
    const picked = statusEvent(o.correlationId, "picked", at(2));
    const packed = statusEvent(o.correlationId, "packed", at(3));
    // Delivered at once, newest first: within the settle delay they are sorted before anything is posted.
    const answers = await Promise.all([packed, validated, picked].map((e) => deliver(h.url, e)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    // A redelivery of one of them changes nothing.
    expect(await (await deliver(h.url, picked)).json()).toMatchObject({ duplicate: true });

    await repliesReach(o, 3);
    await allPosted([validated.id, picked.id, packed.id]);
    expect(replies(o).map(shown)).toEqual(["Status: Validated", "Status: Picked", "Status: Packed"]);
    // Notifications and screen readers name the ticket and the order first.
    expect(replies(o)[0]?.text).toBe(
      `TICKET-123 · order ${o.order.externalDocumentNumber}: Status: Validated`,
    );
    await until(
      () => parentStatus(o),
      (s) => s.includes("Packed"),
      "parent status line shows Packed",
    );
    expect((await getOrder(store, o.orderId))?.status).toBe("packed");
    // The reply's ts is recorded with the event.
    const stored = await getEvent(store, packed.id);
    expect(replies(o).map((m) => m.ts)).toContain(stored?.replyTs);
    expect(h.fake.calls("chat.postMessage").filter((c) => c.args.thread_ts === o.ts)).toHaveLength(3);
  });

  it("posts a late, older event in the thread without letting it overwrite the newer status", async () => {
    const o = await placeOrder(h);
    const shipped = statusEvent(o.correlationId, "shipped", at(10));
    expect((await deliver(h.url, shipped)).status).toBe(200);
    await repliesReach(o, 1);
    await until(
      () => parentStatus(o),
      (s) => s.includes("Shipped"),
      "status line shows Shipped",
    );

    const packed = statusEvent(o.correlationId, "packed", at(5));
    expect((await deliver(h.url, packed)).status).toBe(200);
    const thread = await repliesReach(o, 2);
    expect(thread.map(shown)).toEqual(["Status: Shipped", "Status: Packed"]);
    expect(JSON.stringify(thread[1]?.blocks)).toContain("arrived late");
    await allPosted([packed.id]);
    expect((await getOrder(store, o.orderId))?.status).toBe("shipped");
    expect(parentStatus(o)).toContain("Shipped");
  });

  it("shows a shipping update with carrier, tracking link, parcel, lines and arrival in words, and records the tracking", async () => {
    const o = await placeOrder(h);
    const first = shippingEvent(o.correlationId, at(20), { parcel: { number: 1, of: 2 } });
    expect((await deliver(h.url, first)).status).toBe(200);
    const [reply] = await repliesReach(o, 1);
    const shown = JSON.stringify(reply?.blocks);
    expect(shown).toContain("Parcel 1 of 2");
    expect(shown).toContain("DHL");
    expect(shown).toContain("<https://track.example.com/JD014600003SE|JD014600003SE>");
    expect(shown).toContain("1 × LAPTOP-14");
    // NOW is Tue 24 Nov 2026; the estimate is the 26th.
    expect(shown).toContain("arrives Thu 26 Nov, in 2 days");
    expect(reply?.replyBroadcast).toBe(false);

    await allPosted([first.id]);
    const order = await getOrder(store, o.orderId);
    expect(readTracking(order?.tracking)?.latest).toMatchObject({
      carrier: "DHL",
      trackingUrl: "https://track.example.com/JD014600003SE",
      parcel: { number: 1, of: 2 },
    });
    await until(
      () => parentStatus(o),
      (s) => s.includes("JD014600003SE"),
      "status line shows the tracking",
    );
  });

  it("broadcasts delivered, cancelled and delivery exceptions to the channel", async () => {
    const o = await placeOrder(h);
    const exception = shippingEvent(o.correlationId, at(30), {
      status: "exception",
      exceptionReason: "Address not found",
    });
    const delivered = statusEvent(o.correlationId, "delivered", at(31));
    for (const e of [exception, delivered]) expect((await deliver(h.url, e)).status).toBe(200);
    const thread = await repliesReach(o, 2);
    expect(thread.map((m) => m.replyBroadcast)).toEqual([true, true]);
    expect(JSON.stringify(thread[0]?.blocks)).toContain("Address not found");
  });

  it("shows an event of an unknown type generically", async () => {
    const o = await placeOrder(h);
    const event = {
      id: `evt_${randomUUID()}`,
      type: "order.return_requested",
      occurredAt: at(40),
      correlationId: o.correlationId,
      data: { rma: "RMA-77" },
    };
    expect((await deliver(h.url, event)).status).toBe(200);
    const [reply] = await repliesReach(o, 1);
    expect(reply && shown(reply)).toBe("Supplier update: order.return_requested");
    expect(JSON.stringify(reply?.blocks)).toContain("RMA-77");
  });

  it("keeps an event that arrives before its order's placement is recorded, and posts it once attached", async () => {
    const o = await placeOrder(h, { placed: false });
    const early = statusEvent(o.correlationId, "received", at(50));
    expect((await deliver(h.url, early)).status).toBe(202);
    // The placement job records the correlation id, then attaches what waited for it.
    await store.transaction(async (tx) => {
      await markPlaced(tx, o.orderId, { correlationId: o.correlationId, placedEarlier: false });
      expect(await attachOrphanEvents({ store, jobs: h.jobs }, o.orderId, o.correlationId, { tx })).toBe(1);
    });
    const [reply] = await repliesReach(o, 1);
    expect(reply && shown(reply)).toBe(`Placed with the supplier (correlation id ${o.correlationId})`);
    expect(await getEvent(store, early.id)).toMatchObject({ orderId: o.orderId });
  });

  it("posts an event left waiting by a placement that died before attaching it ahead of the order's later events", async () => {
    const o = await placeOrder(h, { placed: false });
    const early = statusEvent(o.correlationId, "received", at(55));
    expect((await deliver(h.url, early)).status).toBe(202);
    // Killed between recording the placement and attaching what waited for it: no job, no sweep yet.
    await markPlaced(store, o.orderId, { correlationId: o.correlationId, placedEarlier: false });
    const later = statusEvent(o.correlationId, "validated", at(56));
    expect((await deliver(h.url, later)).status).toBe(200);
    const thread = await repliesReach(o, 2);
    expect(thread.map(shown)).toEqual([
      `Placed with the supplier (correlation id ${o.correlationId})`,
      "Status: Validated",
    ]);
    expect(await getEvent(store, early.id)).toMatchObject({ orderId: o.orderId });
  });

  it("sweeps: attaches orphans whose order became known, and reports those still unknown to the admins once", async () => {
    const o = await placeOrder(h, { placed: false });
    const raced = statusEvent(o.correlationId, "validated", at(51));
    expect((await deliver(h.url, raced)).status).toBe(202);
    // The placement recorded its correlation id but never attached (e.g. it raced the event's INSERT).
    await markPlaced(store, o.orderId, { correlationId: o.correlationId, placedEarlier: false });
    const lost = statusEvent(randomUUID(), "received", at(52), { externalDocumentNumber: "OD-NOWHERE" });
    expect((await deliver(h.url, lost)).status).toBe(202);

    const sweeper = createOrphanSweeper({
      store,
      jobs: h.jobs,
      orphanAfterMs: 0,
      now: () => Date.now() + 1000,
      alertAdmins: async (alert) => {
        h.alerts.push(alert);
      },
    });
    const first = await sweeper.runOnce();
    expect(first.attached).toBeGreaterThanOrEqual(1);
    expect(first.reported).toBeGreaterThanOrEqual(1);
    const alert = h.alerts.find((a) => a.key === `orphan-events:${lost.correlationId}`);
    expect(alert?.text).toContain("OD-NOWHERE");
    await repliesReach(o, 1);
    // Reported once.
    const again = await sweeper.runOnce();
    expect(h.alerts.filter((a) => a.key === `orphan-events:${lost.correlationId}`)).toHaveLength(1);
    expect(again.reported).toBe(0);
  });

  it("sweeps: re-enqueues the posting of an event left unposted without a job", async () => {
    const o = await placeOrder(h);
    const e = statusEvent(o.correlationId, "picked", at(54));
    // Stored as a covered event is (no job of its own), and the job relied on never ran.
    await storeEventWithoutJob(store, e);
    const sweeper = createOrphanSweeper({
      store,
      jobs: h.jobs,
      orphanAfterMs: 3_600_000,
      now: () => Date.now() + 600_000,
    });
    expect((await sweeper.runOnce()).restarted).toBeGreaterThanOrEqual(1);
    const [reply] = await repliesReach(o, 1);
    expect(reply && shown(reply)).toBe("Status: Picked");
  });

  it("adopts an order placed by an earlier attempt (no correlation id) by its document number", async () => {
    const o = await placeOrder(h, { placed: false });
    await markPlaced(store, o.orderId, { correlationId: null, placedEarlier: true });
    const event = statusEvent(o.correlationId, "validated", at(53), {
      externalDocumentNumber: o.order.externalDocumentNumber,
    });
    expect((await deliver(h.url, event)).status).toBe(200);
    expect((await getOrder(store, o.orderId))?.correlationId).toBe(o.correlationId);
    await repliesReach(o, 1);
  });
});

describe("Slack's limits", () => {
  it("re-schedules after Retry-After on 429 bursts and drops nothing", async () => {
    const o = await placeOrder(h);
    h.fake.rateLimit({ method: "chat.postMessage", count: 2, retryAfterSec: 1 });
    const events = [1, 2, 3].map((m) =>
      statusEvent(o.correlationId, ["validated", "picked", "packed"][m - 1] ?? "", at(m)),
    );
    for (const e of events) expect((await deliver(h.url, e)).status).toBe(200);
    const thread = await repliesReach(o, 3);
    expect(thread.map(shown)).toEqual(["Status: Validated", "Status: Picked", "Status: Packed"]);
    const limited = h.fake.calls("chat.postMessage").filter((c) => c.httpStatus === 429);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    // The first post after the 429s waited for Retry-After.
    const lastLimited = Math.max(...limited.map((c) => c.at));
    const firstOk = h.fake
      .calls("chat.postMessage")
      .find((c) => c.httpStatus === 200 && c.at > lastLimited && c.args.thread_ts === o.ts);
    expect(firstOk && firstOk.at - lastLimited).toBeGreaterThanOrEqual(900);
  });

  it("posts a reply once when Slack took it but the answer was lost, finding it in the thread on the retry", async () => {
    const o = await placeOrder(h);
    h.fake.loseAnswerNext("chat.postMessage");
    const events = [
      statusEvent(o.correlationId, "validated", at(1)),
      statusEvent(o.correlationId, "picked", at(2)),
    ];
    for (const e of events) expect((await deliver(h.url, e)).status).toBe(200);
    await allPosted(events.map((e) => e.id));
    expect(replies(o).map(shown)).toEqual(["Status: Validated", "Status: Picked"]);
    const first = await getEvent(store, events[0]?.id ?? "");
    expect(first?.replyTs).toBe(replies(o)[0]?.ts);
    // The retry read the thread instead of posting blindly.
    expect(h.fake.calls("conversations.replies").some((c) => c.args.ts === o.ts)).toBe(true);
  });

  it("without the history scopes, posts again after a lost answer rather than lose the update", async () => {
    // A store of its own: on the file's store, the other harness's post-update worker would take this
    // harness's jobs and post them to its own fake Slack, which has the history scopes and no such thread.
    const own = await openTestStore();
    const bare = await startHarness(own, {
      scopes: DEFAULT_BOT_SCOPES.filter((scope) => !scope.endsWith(":history")),
    });
    try {
      const o = await placeOrder(bare);
      bare.fake.loseAnswerNext("chat.postMessage");
      const event = statusEvent(o.correlationId, "validated", at(1));
      expect((await deliver(bare.url, event)).status).toBe(200);
      await until(
        () => getEvent(own, event.id),
        (e) => Boolean(e?.postedAt),
        "the event marked posted",
      );
      // The documented cost of an app installed without the scopes: the interrupted reply shows twice.
      expect(bare.fake.thread(ORDERS_CHANNEL, o.ts).map(shown)).toEqual([
        "Status: Validated",
        "Status: Validated",
      ]);
      const reads = bare.fake.calls("conversations.replies");
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.every((c) => (c.response as { error?: string }).error === "missing_scope")).toBe(true);
    } finally {
      await bare.close();
      await own.close();
    }
  });

  it("keeps to about one message per second per channel", async () => {
    const o = await placeOrder(h);
    // Stored directly (no job): this worker posts them itself, at Slack's default pace.
    const ids: string[] = [];
    for (const [i, s] of ["validated", "picked", "packed"].entries()) {
      const e = statusEvent(o.correlationId, s, at(i + 1));
      await storeEventWithoutJob(store, e);
      ids.push(e.id);
    }
    // The slot each message was given, as the pacer's own clock says: when the requests reach Slack depends on
    // the machine's load, which the pace must not (and the test cannot) depend on.
    const slots: number[] = [];
    let read = 0;
    class WatchedPacer extends ChannelPacer {
      override reserve(channel: string, maxWaitMs: number) {
        const reservation = super.reserve(channel, maxWaitMs);
        if (reservation.reserved) slots.push(read + reservation.waitMs);
        return reservation;
      }
    }
    const worker = createPostUpdateWorker({
      store,
      slack: h.slack,
      present: h.present,
      pacer: new WatchedPacer({ perSecond: 1, burst: 1, now: () => (read = Date.now()) }),
      now: () => NOW,
    });
    const outcome = await worker.postOrderUpdates(o.orderId);
    expect(outcome.posted).toBe(3);
    const posts = h.fake.calls("chat.postMessage").filter((c) => c.args.thread_ts === o.ts);
    expect(posts).toHaveLength(3);
    expect(slots).toHaveLength(3);
    for (let i = 1; i < slots.length; i++)
      expect((slots[i] ?? 0) - (slots[i - 1] ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it("stops posting for an archived channel, records the error and tells the admins", async () => {
    const channel = "C0ARCHIVE";
    h.fake.addChannel({ id: channel, name: "old-project" });
    const o = await placeOrder(h, { channel });
    h.fake.setArchived(channel, true);
    const event = statusEvent(o.correlationId, "validated", at(1));
    expect((await deliver(h.url, event)).status).toBe(200);
    const alert = await until(
      () => h.alerts.find((a) => a.key === `updates-destination-gone:${o.orderId}:is_archived`),
      Boolean,
      "an admin alert",
    );
    expect(alertPlainText(alert ?? { text: "" })).toContain("archived");
    const stored = await getEvent(store, event.id);
    expect(stored).toMatchObject({ postedAt: null, postError: { slackError: "is_archived" } });
    // The job is failed, not retried (it cannot succeed until someone acts in Slack).
    const job = await until(
      () => h.jobs.getJob(QUEUES.postUpdate, postUpdateJobId(event.id)),
      (j) => j?.state === "failed",
      "the job failed",
    );
    expect(job?.runs).toBe(1);
    // The status still moved on: App Home shows it.
    expect((await getOrder(store, o.orderId))?.status).toBe("validated");
  });

  it("posts the message of a placed order whose placement could not show it, then threads its updates", async () => {
    const orderId = randomUUID();
    const correlationId = randomUUID();
    const edn = `OD-LOST-${orderId.slice(0, 6)}`;
    // Slack was down for both of the placement job's posts: the order is placed, in a channel, with no message.
    await insertOrder(store, {
      id: orderId,
      profile: "default",
      externalDocumentNumber: edn,
      customerReference: "TICKET-404",
      requestedBy: "U0AGENT01",
      source: "command",
      status: "placing",
      slackChannelId: ORDERS_CHANNEL,
      request: validOrder({ externalDocumentNumber: edn }),
    });
    await markPlaced(store, orderId, { correlationId, placedEarlier: false });
    const event = statusEvent(correlationId, "received", "2026-11-24T09:00:00Z");
    await storeEventWithoutJob(store, event);

    const worker = createPostUpdateWorker({
      store,
      slack: h.slack,
      present: h.present,
      pacer: new ChannelPacer({ perSecond: 50, burst: 50 }),
      // The quiet period is measured on the wall clock against the database's own updated_at, whatever the
      // worker's clock (fixed here).
      now: () => NOW,
      missingMessageAfterMs: 0,
      showMissingMessage: async (order) => {
        const parent = h.present.parent(order);
        const { ts } = await h.slack.postMessage({
          channel: ORDERS_CHANNEL,
          text: parent?.text ?? "",
          blocks: parent?.blocks ?? [],
        });
        return (
          (await setOriginMessage(store, order.id, { channelId: ORDERS_CHANNEL, messageTs: ts })) ?? order
        );
      },
    });
    const outcome = await worker.postOrderUpdates(orderId);
    expect(outcome.posted).toBe(1);
    const order = await getOrder(store, orderId);
    expect(order?.slackMessageTs).toBeTruthy();
    expect(h.fake.thread(ORDERS_CHANNEL, order?.slackMessageTs ?? "")).toHaveLength(1);
  });
});
