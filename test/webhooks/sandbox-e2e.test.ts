/**
 * End to end: orders placed on the supplier sandbox (fast timeline), whose signed webhook events — with
 * duplicate and swapped deliveries injected by the sandbox — go to our receiver, and from there to the fake
 * Slack. Each thread must end with every event once, in occurredAt order, and the status line at Delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { insertOrder, markPlaced, setOriginMessage } from "../../src/store/repositories/orders.ts";
import { SupplierClient } from "../../src/supplier/client.ts";
import { attachOrphanEvents } from "../../src/webhooks/orphans.ts";
import { validOrder } from "../../tools/example-order.ts";
import { getTestStore } from "../helpers/db.ts";
import { type Harness, ORDERS_CHANNEL, SECRET, startHarness, until } from "./support.ts";

let store: Store;
let h: Harness;
let sandbox: SandboxHandle;

beforeAll(async () => {
  store = await getTestStore();
  h = await startHarness(store, { settleMs: 800 });
  sandbox = await startSandbox({
    webhookUrl: h.url,
    webhookSecret: SECRET,
    // One parcel's ~38 minutes in about a second.
    speed: 3000,
    seed: "webhooks-e2e",
    duplicateRate: 0.5,
    reorderRate: 1,
  });
});
afterAll(async () => {
  await sandbox?.close();
  await h?.close();
});

/** What the placement job does: place, record the correlation id, attach the events that raced it. */
async function placeThroughSandbox(ticket: string, n: number) {
  const client = new SupplierClient({ baseUrl: sandbox.url, environment: "test" });
  const edn = `E2E-${ticket}-${n}`;
  const request = validOrder({ externalDocumentNumber: edn, customerReference: ticket });
  const orderId = `ord_e2e_${n}_${Date.now()}`;
  const { order } = await insertOrder(store, {
    id: orderId,
    profile: "default",
    externalDocumentNumber: edn,
    customerReference: ticket,
    requestedBy: "U0AGENT01",
    source: "command",
    status: "placing",
    request,
  });
  const parent = h.present.parent(order);
  const { ts } = await h.slack.postMessage({
    channel: ORDERS_CHANNEL,
    text: parent?.text ?? "",
    blocks: parent?.blocks ?? [],
  });
  await setOriginMessage(store, orderId, { channelId: ORDERS_CHANNEL, messageTs: ts });
  const key = sandbox.keys[0]?.key;
  if (!key) throw new Error("the sandbox has no key");
  const placed = await client.createOrder(request, { apiKey: key });
  if (placed.correlationId === null) throw new Error("placed earlier?");
  const correlationId = placed.correlationId;
  await store.transaction(async (tx) => {
    await markPlaced(tx, orderId, { correlationId, placedEarlier: false });
    await attachOrphanEvents({ store, jobs: h.jobs }, orderId, correlationId, { tx });
  });
  return { orderId, correlationId, ts };
}

describe("sandbox → receiver → fake Slack", () => {
  it("ends each thread with every event once, in occurredAt order, despite duplicated and swapped deliveries", {
    // Both orders share one channel paced at ~1 message/s: ~30 replies need ~30 s even on an idle machine.
    timeout: 180_000,
  }, async () => {
    const orders = await Promise.all([placeThroughSandbox("ABC-101", 1), placeThroughSandbox("ABC-102", 2)]);

    for (const o of orders) {
      const detail = await until(
        () => sandbox.order(o.correlationId),
        (d) =>
          d !== null && d.upcoming.length === 0 && d.events.every((e) => e.delivery.state === "delivered"),
        "the sandbox emitted and delivered every event",
        30_000,
      );
      const events = detail?.events ?? [];
      // The sandbox did inject faults: some events were delivered twice.
      const expectedIds = events
        .map((e) => e.event)
        .sort((a, b) => Date.parse(a.occurredAt) - Date.parse(b.occurredAt) || a.id.localeCompare(b.id))
        .map((e) => e.id);
      const thread = await until(
        () => h.fake.thread(ORDERS_CHANNEL, o.ts),
        (t) => t.length >= expectedIds.length,
        `${expectedIds.length} replies for ${o.correlationId}`,
        75_000,
      );
      // Every event once, in order: the replies' event ids (message metadata) are the events sorted by occurredAt.
      // A reply lands in Slack a moment before it is marked posted: wait for the marks.
      const stored = await until(
        () => Promise.all(expectedIds.map((id) => getEvent(store, id))),
        (events) => events.every((e) => e?.replyTs),
        `every event of ${o.correlationId} marked posted`,
      );
      const replyTs = stored.map((e) => e?.replyTs);
      expect(thread.map((m) => m.ts)).toEqual(replyTs);
      expect(thread).toHaveLength(expectedIds.length);
      await until(
        () => h.fake.message(ORDERS_CHANNEL, o.ts)?.versions.at(-1)?.blocks,
        (blocks) => JSON.stringify(blocks ?? []).includes("Delivered"),
        "the status line shows Delivered",
      );
    }
    const duplicates = (await Promise.all(orders.map((o) => sandbox.order(o.correlationId))))
      .flatMap((d) => d?.events ?? [])
      .filter((e) => e.delivery.attempts.some((a) => a.duplicate));
    expect(duplicates.length).toBeGreaterThan(0);
  });
});
