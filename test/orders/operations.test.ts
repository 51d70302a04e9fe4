/**
 * The operators' actions are exactly once in the store: of many clicks at the same moment (one admin's double
 * click, several admins), one changes the state and inserts its job, the others find it done and by whom. On
 * PGlite and, with DATABASE_URL, on PostgreSQL (where the clicks really run in parallel transactions).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobId } from "../../src/jobs/ids.ts";
import { createJobs, type Jobs } from "../../src/jobs/index.ts";
import { runOperatorAction } from "../../src/orders/operations/act.ts";
import type { Store } from "../../src/store/db.ts";
import { getAttention, openAttention } from "../../src/store/repositories/attention.ts";
import { getEvent, insertEventIfNew, type NewEvent } from "../../src/store/repositories/events.ts";
import { listOrderAliases } from "../../src/store/repositories/order-aliases.ts";
import {
  getOrder,
  insertOrder,
  markFailed,
  markPlaced,
  markRejected,
} from "../../src/store/repositories/orders.ts";
import { createOrphanSweeper } from "../../src/webhooks/orphans.ts";
import { validOrder } from "../../tools/example-order.ts";
import { getTestStore, TEST_BACKENDS } from "../helpers/db.ts";

describe.each(TEST_BACKENDS)("operator actions on %s", (backend) => {
  let store: Store;
  let jobs: Jobs;

  beforeAll(async () => {
    store = await getTestStore(backend);
    jobs = createJobs({ store, pollIntervalMs: 100 });
    await jobs.start();
  });
  afterAll(async () => {
    await jobs?.stop({ graceMs: 500 });
  });

  /** A new order being placed; returns its id and document number. */
  async function placingOrder(): Promise<{ id: string; edn: string }> {
    const id = randomUUID();
    const edn = `OPS-${id.slice(0, 8)}`;
    await insertOrder(store, {
      id,
      profile: "default",
      externalDocumentNumber: edn,
      requestedBy: "U0AGENT01",
      source: "command",
      status: "placing",
      request: validOrder({ externalDocumentNumber: edn }),
    });
    return { id, edn };
  }

  async function failedOrder(how: "failed" | "rejected" = "failed") {
    const { id, edn } = await placingOrder();
    if (how === "failed") {
      await markFailed(store, id, {
        kind: "failed",
        reason: "retries_exhausted",
        code: "SUPPLIER_UNAVAILABLE",
        maybePlaced: false,
        retriesExhausted: true,
      });
    } else await markRejected(store, id, { kind: "rejected", reason: "rejected", code: "VALIDATION_FAILED" });
    const { item } = await openAttention(store, {
      id: randomUUID(),
      kind: "failed_order",
      subject: id,
      alert: { title: `Order ${edn} was not placed`, text: "test" },
    });
    return { orderId: id, item };
  }

  /** An order with this correlation id (null: placed by an attempt whose answer was lost). */
  async function orderWith(correlationId: string | null) {
    const { id, edn } = await placingOrder();
    await markPlaced(store, id, { correlationId, placedEarlier: correlationId === null });
    return { orderId: id, edn };
  }

  let minute = 0;
  function orphanEvent(correlationId: string): NewEvent {
    const occurredAt = new Date(Date.UTC(2026, 0, 1, 12, minute++)).toISOString();
    return {
      id: `evt_${randomUUID()}`,
      correlationId,
      type: "order.status_changed",
      occurredAt,
      payload: {
        id: "x",
        type: "order.status_changed",
        occurredAt,
        correlationId,
        data: { status: "packed" },
      },
    };
  }

  /** Orphans of a new correlation id, and their open alert. */
  async function orphans(count: number) {
    const correlationId = randomUUID();
    const events = Array.from({ length: count }, () => orphanEvent(correlationId));
    for (const e of events) expect((await insertEventIfNew(store, e)).orderId).toBeNull();
    const { item } = await openAttention(store, {
      id: randomUUID(),
      kind: "orphan_events",
      subject: correlationId,
      alert: { title: "Supplier updates for an unknown order", text: "test" },
    });
    return { correlationId, events, item };
  }

  const attach = (itemId: string, orderNumber: string, by = "U0ADMIN01") =>
    runOperatorAction({ store, jobs }, { itemId, action: "attach_orphans", by, orderNumber });

  it("attaches orphans to an order with its own correlation id once for simultaneous clicks, and the supplier's later events with theirs find the order", async () => {
    const own = randomUUID();
    const { orderId, edn } = await orderWith(own);
    const { correlationId, events, item } = await orphans(2);
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => attach(item.id, edn, i % 2 ? "U0ADMIN02" : "U0ADMIN01")),
    );
    expect(outcomes.filter((o) => o.kind === "done")).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === "already")).toHaveLength(5);
    expect(await getAttention(store, item.id)).toMatchObject({
      resolution: "attached",
      resolutionDetail: { orderId, externalDocumentNumber: edn, events: 2 },
    });
    for (const e of events) expect((await getEvent(store, e.id))?.orderId).toBe(orderId);
    const job = await jobs.getJob("post-update", jobId("post-update", "operator-attach", item.id));
    expect(job?.data).toEqual({ orderId, eventId: events[0]?.id });

    // The order keeps its own correlation id; the orphans' one is recorded beside it, once.
    expect((await getOrder(store, orderId))?.correlationId).toBe(own);
    expect(await listOrderAliases(store, orderId)).toEqual([correlationId]);
    expect(await insertEventIfNew(store, orphanEvent(correlationId))).toMatchObject({ orderId });
    expect(await insertEventIfNew(store, orphanEvent(own))).toMatchObject({ orderId });
  });

  it("gives an order without a correlation id the orphans' one (no alias)", async () => {
    const { orderId, edn } = await orderWith(null);
    const { correlationId, item } = await orphans(1);
    expect((await attach(item.id, edn)).kind).toBe("done");
    expect((await getOrder(store, orderId))?.correlationId).toBe(correlationId);
    expect(await listOrderAliases(store, orderId)).toEqual([]);
    expect(await insertEventIfNew(store, orphanEvent(correlationId))).toMatchObject({ orderId });
  });

  it("leaves orphans whose correlation id became another order's meanwhile to that order", async () => {
    const { orderId, edn } = await orderWith(randomUUID());
    const { correlationId, events, item } = await orphans(1);
    // The orphans' real order: its placement was recorded after they arrived (the sweep attaches them).
    const owner = await orderWith(correlationId);
    const outcome = await attach(item.id, edn);
    expect(outcome).toMatchObject({ kind: "obsolete" });
    expect(outcome.kind === "obsolete" && outcome.reason).toContain(owner.edn);
    expect((await getEvent(store, events[0]?.id ?? ""))?.orderId).toBeNull();
    expect(await listOrderAliases(store, orderId)).toEqual([]);
    expect(await insertEventIfNew(store, orphanEvent(correlationId))).toMatchObject({
      orderId: owner.orderId,
    });
  });

  it("the orphan sweep attaches an event with an attached correlation id that was stored as an orphan (its INSERT raced the attach)", async () => {
    const { orderId, edn } = await orderWith(randomUUID());
    const { correlationId, item } = await orphans(1);
    expect((await attach(item.id, edn)).kind).toBe("done");
    // What an INSERT whose snapshot predates the attach's commit stores on PostgreSQL.
    const raced = orphanEvent(correlationId);
    await store.query(
      `INSERT INTO supplier_events (id, correlation_id, order_id, type, occurred_at, payload)
       VALUES ($1, $2, NULL, $3, $4, $5)`,
      [raced.id, correlationId, raced.type, raced.occurredAt, JSON.stringify(raced.payload)],
    );
    const sweeper = createOrphanSweeper({ store, jobs, orphanAfterMs: 3_600_000 });
    expect((await sweeper.runOnce()).attached).toBeGreaterThanOrEqual(1);
    expect((await getEvent(store, raced.id))?.orderId).toBe(orderId);
  });

  it("retries a failed order once for eight simultaneous clicks by two admins, and says who did it", async () => {
    const { orderId, item } = await failedOrder();
    const admins = ["U0ADMIN01", "U0ADMIN02"];
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        runOperatorAction(
          { store, jobs },
          { itemId: item.id, action: "retry_order", by: admins[i % 2] ?? "" },
        ),
      ),
    );
    const done = outcomes.filter((o) => o.kind === "done");
    expect(done).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === "already")).toHaveLength(7);
    const winner = done[0]?.kind === "done" ? done[0].item.resolvedBy : null;
    for (const o of outcomes) if (o.kind === "already") expect(o.item.resolvedBy).toBe(winner);

    const { rows } = await store.query("SELECT status FROM orders WHERE id = $1", [orderId]);
    expect(rows[0]?.status).toBe("queued");
    const job = await jobs.getJob("place-order", jobId("place-order", orderId, "operator-retry", item.id));
    expect(job?.data).toEqual({ orderId, queuedAt: expect.any(String) });
    const { rows: all } = await store.query(
      `SELECT count(*)::int AS n FROM ${jobs.schema}.job WHERE name = 'place-order' AND data->>'orderId' = $1`,
      [orderId],
    );
    expect(all[0]?.n).toBe(1);
  });

  it("does not retry an order the supplier refused (that one is fixed and resubmitted) and closes the item", async () => {
    const { orderId, item } = await failedOrder("rejected");
    const outcome = await runOperatorAction(
      { store, jobs },
      { itemId: item.id, action: "retry_order", by: "U0ADMIN01" },
    );
    expect(outcome.kind).toBe("obsolete");
    const { rows } = await store.query("SELECT status FROM orders WHERE id = $1", [orderId]);
    expect(rows[0]?.status).toBe("failed");
    expect((await getAttention(store, item.id))?.resolution).toBe("obsolete");
  });

  it("refuses unknown ids and actions the item does not offer, changing nothing", async () => {
    const { orderId, item } = await failedOrder();
    expect(
      await runOperatorAction(
        { store, jobs },
        { itemId: randomUUID(), action: "retry_order", by: "U0ADMIN01" },
      ),
    ).toMatchObject({ kind: "refused" });
    expect(
      await runOperatorAction(
        { store, jobs },
        { itemId: item.id, action: "ignore_orphans", by: "U0ADMIN01" },
      ),
    ).toMatchObject({ kind: "refused" });
    expect(
      await runOperatorAction(
        { store, jobs },
        { itemId: item.id, action: "attach_orphans", by: "U0ADMIN01" },
      ),
    ).toMatchObject({ kind: "refused" });
    expect((await getAttention(store, item.id))?.resolvedAt).toBeNull();
    const { rows } = await store.query("SELECT status FROM orders WHERE id = $1", [orderId]);
    expect(rows[0]?.status).toBe("failed");
  });

  it("keeps one open item per subject: the same trouble reported twice is one alert", async () => {
    const subject = randomUUID();
    const alert = { title: "Supplier updates for an unknown order", text: "test" };
    const [a, b] = await Promise.all([
      openAttention(store, { id: randomUUID(), kind: "orphan_events", subject, alert }),
      openAttention(store, { id: randomUUID(), kind: "orphan_events", subject, alert }),
    ]);
    expect(a.item.id).toBe(b.item.id);
    expect([a.created, b.created].sort()).toEqual([false, true]);
  });
});
