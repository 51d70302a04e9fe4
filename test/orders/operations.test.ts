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
import { insertOrder, markFailed, markRejected } from "../../src/store/repositories/orders.ts";
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

  async function failedOrder(how: "failed" | "rejected" = "failed") {
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
    expect(job?.data).toEqual({ orderId });
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
