import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Queryable, Store } from "../../src/store/db.ts";
import { openAttention } from "../../src/store/repositories/attention.ts";
import {
  attachOrphans,
  attachOrphansOfOrder,
  getEvent,
  insertEventIfNew,
  insertEventsIfNew,
  listOrphansOlderThan,
  listUnpostedForOrder,
  markOrphanReported,
  markPostError,
  markPosted,
  type NewEvent,
} from "../../src/store/repositories/events.ts";
import {
  findOrderIdByCorrelationId,
  insertOrderAlias,
  listOrderAliases,
} from "../../src/store/repositories/order-aliases.ts";
import { insertOrder, markPlaced } from "../../src/store/repositories/orders.ts";
import { nextValues } from "../../src/store/repositories/sequences.ts";
import type { CreateOrderRequest } from "../../src/supplier/schema.ts";
import { getTestStore, TEST_BACKENDS } from "../helpers/db.ts";

async function placedOrder(store: Store): Promise<{ orderId: string; correlationId: string }> {
  const orderId = randomUUID();
  const correlationId = randomUUID();
  await insertOrder(store, {
    id: orderId,
    profile: "default",
    externalDocumentNumber: `OD-${orderId}`,
    requestedBy: "U1",
    source: "cli",
    request: { externalDocumentNumber: `OD-${orderId}` } as CreateOrderRequest,
  });
  await markPlaced(store, orderId, { correlationId, placedEarlier: false });
  return { orderId, correlationId };
}

function event(correlationId: string, minute: number, overrides: Partial<NewEvent> = {}): NewEvent {
  const occurredAt = new Date(Date.UTC(2025, 0, 1, 12, minute)).toISOString();
  return {
    id: `evt_${randomUUID()}`,
    correlationId,
    type: "order.status_changed",
    occurredAt,
    payload: { status: "packed", occurredAt },
    ...overrides,
  };
}

describe.each(TEST_BACKENDS)("supplier events repository on %s", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await getTestStore(backend);
  });

  it("stores an event once and links it to its order by correlation id", async () => {
    const { orderId, correlationId } = await placedOrder(store);
    const e = event(correlationId, 1);
    expect(await insertEventIfNew(store, e)).toEqual({ inserted: true, orderId });
    expect(await insertEventIfNew(store, e)).toEqual({ inserted: false, orderId });
    const stored = await getEvent(store, e.id);
    expect(stored).toMatchObject({ id: e.id, orderId, type: e.type, payload: e.payload, postedAt: null });
    expect(stored?.occurredAt).toEqual(new Date(e.occurredAt));
    expect(stored?.receivedAt).toBeInstanceOf(Date);
  });

  it("keeps an event for an unknown order as an orphan, then attaches it when the order is known", async () => {
    const correlationId = randomUUID();
    const late = event(correlationId, 5);
    const early = event(correlationId, 2);
    expect(await insertEventIfNew(store, late)).toEqual({ inserted: true, orderId: null });
    expect(await insertEventIfNew(store, early)).toEqual({ inserted: true, orderId: null });

    const { orderId } = await placedOrder(store);
    expect(await attachOrphans(store, correlationId, orderId)).toEqual([early.id, late.id]);
    expect(await attachOrphans(store, correlationId, orderId)).toEqual([]);
    expect((await getEvent(store, late.id))?.orderId).toBe(orderId);
  });

  it("matches the events of a correlation id attached to an order (an alias) to that order, its own id first", async () => {
    const { orderId, correlationId: own } = await placedOrder(store);
    const attached = randomUUID();
    // Stored while the attach was being committed: an orphan still.
    const waiting = event(attached, 1);
    expect(await insertEventIfNew(store, waiting)).toEqual({ inserted: true, orderId: null });
    const { item } = await openAttention(store, {
      id: randomUUID(),
      kind: "orphan_events",
      subject: attached,
      alert: { title: "Supplier updates for an unknown order", text: "test" },
    });
    await insertOrderAlias(store, {
      correlationId: attached,
      orderId,
      attentionId: item.id,
      by: "U0ADMIN01",
    });
    expect(await listOrderAliases(store, orderId)).toEqual([attached]);
    expect(await findOrderIdByCorrelationId(store, attached)).toBe(orderId);
    expect(await findOrderIdByCorrelationId(store, own)).toBe(orderId);
    expect(await findOrderIdByCorrelationId(store, randomUUID())).toBeNull();

    // The post-update job's adoption links the waiting one, once.
    expect(await attachOrphansOfOrder(store, orderId)).toBe(1);
    expect(await attachOrphansOfOrder(store, orderId)).toBe(0);
    expect((await getEvent(store, waiting.id))?.orderId).toBe(orderId);

    // Later events: alone, and in a batch with the order's own and an unknown one.
    const later = event(attached, 2);
    expect(await insertEventIfNew(store, later)).toEqual({ inserted: true, orderId });
    expect(await insertEventIfNew(store, later)).toEqual({ inserted: false, orderId });
    const batch = [event(attached, 3), event(own, 4), event(randomUUID(), 5)];
    const stored = await insertEventsIfNew(store, [...batch, later]);
    expect([...batch, later].map((e) => stored.get(e.id))).toEqual([
      { inserted: true, orderId },
      { inserted: true, orderId },
      { inserted: true, orderId: null },
      { inserted: false, orderId },
    ]);

    // One order per correlation id: attaching it to another order fails rather than re-pointing it.
    const other = await placedOrder(store);
    await expect(
      insertOrderAlias(store, {
        correlationId: attached,
        orderId: other.orderId,
        attentionId: item.id,
        by: "U0ADMIN02",
      }),
    ).rejects.toThrow();
    expect(await findOrderIdByCorrelationId(store, attached)).toBe(orderId);

    // An order's own correlation id comes before an alias naming it (which no attach makes).
    await insertOrderAlias(store, {
      correlationId: other.correlationId,
      orderId,
      attentionId: item.id,
      by: "U0ADMIN01",
    });
    expect(await insertEventIfNew(store, event(other.correlationId, 6))).toEqual({
      inserted: true,
      orderId: other.orderId,
    });
    const ownInBatch = event(other.correlationId, 7);
    expect((await insertEventsIfNew(store, [ownInBatch])).get(ownInBatch.id)).toEqual({
      inserted: true,
      orderId: other.orderId,
    });
    expect(await findOrderIdByCorrelationId(store, other.correlationId)).toBe(other.orderId);
  });

  it("lists an order's unposted events by occurrence, and a posted one never again", async () => {
    const { orderId, correlationId } = await placedOrder(store);
    const second = event(correlationId, 20);
    const first = event(correlationId, 10);
    await insertEventIfNew(store, second);
    await insertEventIfNew(store, first);
    expect((await listUnpostedForOrder(store, orderId)).map((e) => e.id)).toEqual([first.id, second.id]);

    await markPostError(store, first.id, { code: "ratelimited" });
    expect((await getEvent(store, first.id))?.postError).toEqual({ code: "ratelimited" });
    expect(await markPosted(store, first.id, "1700000000.000100")).toBe(true);
    expect(await markPosted(store, first.id, "1700000000.000200")).toBe(false);
    expect(await getEvent(store, first.id)).toMatchObject({ replyTs: "1700000000.000100", postError: null });
    expect((await listUnpostedForOrder(store, orderId)).map((e) => e.id)).toEqual([second.id]);
  });

  it("lists orphans older than a time once, until they are reported", async () => {
    const orphan = event(randomUUID(), 0);
    await insertEventIfNew(store, orphan);
    const future = new Date(Date.now() + 60_000);
    expect((await listOrphansOlderThan(store, new Date(Date.now() - 60_000))).map((e) => e.id)).not.toContain(
      orphan.id,
    );
    expect((await listOrphansOlderThan(store, future, 1000)).map((e) => e.id)).toContain(orphan.id);
    expect(await markOrphanReported(store, orphan.id)).toBe(true);
    expect(await markOrphanReported(store, orphan.id)).toBe(false);
    expect((await listOrphansOlderThan(store, future, 1000)).map((e) => e.id)).not.toContain(orphan.id);
  });
});

describe.each(TEST_BACKENDS)("document sequences on %s", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await getTestStore(backend);
  });

  /** One value of `prefix`. */
  const nextValue = async (q: Queryable, prefix: string): Promise<number> =>
    (await nextValues(q, new Map([[prefix, 1]]))).get(prefix) ?? Number.NaN;

  it("hands out consecutive values per prefix, without gaps after a rollback or duplicates under concurrency", async () => {
    const prefix = `P${randomUUID().slice(0, 6)}`;
    expect(await nextValue(store, prefix)).toBe(1);
    await store
      .transaction(async (tx) => {
        await nextValue(tx, prefix);
        throw new Error("rolled back");
      })
      .catch(() => {});
    const values = await Promise.all(Array.from({ length: 10 }, () => nextValue(store, prefix)));
    expect(values.sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(await nextValue(store, `${prefix}-other`)).toBe(1);
  });
});
