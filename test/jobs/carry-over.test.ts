/**
 * A pg-boss 10 schema, written by pg-boss 10 itself (the `pg-boss-v10` dev dependency), is carried into pg-boss
 * 12's at start-up: every job keeps its id, queue, payload, singleton key, attempts, start time and state; an
 * active one (its process is gone) is queued again; the old schema stays, renamed; a second start, or replicas
 * starting together, copy nothing twice.
 */
import PgBossV10 from "pg-boss-v10";
import { afterEach, describe, expect, it } from "vitest";
import { createJobs, type Jobs } from "../../src/jobs/index.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { openTestStore, TEST_BACKENDS, testDatabaseUrl } from "../helpers/db.ts";

const stores: Store[] = [];
const running: Jobs[] = [];
/** The renamed schemas, dropped after each test (a test schema's own are dropped with it). */
const asides: { store: Store; schema: string }[] = [];
afterEach(async () => {
  for (const jobs of running.splice(0)) await jobs.stop({ graceMs: 0 });
  for (const { store, schema } of asides.splice(0)) {
    if (store.kind === "postgres") await store.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
  for (const store of stores.splice(0)) await store.close();
});

function jobsSchemaOf(store: Store): string {
  return store.schema ? `${store.schema}_jobs` : "legacy_jobs";
}

interface Legacy {
  ids: Record<"created" | "later" | "retry" | "active" | "failed" | "completed" | "keyed", string>;
}

/** Jobs in every state, written by pg-boss 10 on `schema`, which is then stopped (as the old version was). */
async function legacyJobs(store: Store, schema: string): Promise<Legacy> {
  // The test store comes with pg-boss 12 installed, as a started app leaves it; this one is the old release's.
  await store.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const boss = new PgBossV10({
    db: { executeSql: (text: string, values: unknown[]) => store.query(text, values) },
    schema,
    supervise: false,
    schedule: false,
  });
  await boss.start();
  const queue = "place-order";
  await boss.createQueue(queue, { name: queue, policy: "standard", retryLimit: 3, retryDelay: 1 });
  await boss.createQueue("post-update", { name: "post-update", policy: "standard", retryLimit: 2 });
  const send = async (data: object, options: PgBossV10.SendOptions = {}) =>
    (await boss.send(queue, data, options)) as string;
  // Sent and fetched one by one, each settled as its state wants; then the ones still waiting.
  const settled = {} as Record<"retry" | "active" | "failed" | "completed", string>;
  for (const name of ["retry", "active", "failed", "completed"] as const) {
    const id = await send({ orderId: `o-${name}` }, name === "failed" ? { retryLimit: 0 } : {});
    // pg-boss 10 fetches jobs with start_after < now(), and PGlite's now() ticks in whole milliseconds: a fetch
    // in the send's millisecond finds nothing yet.
    let [fetched] = await boss.fetch(queue);
    for (let tries = 0; !fetched && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      [fetched] = await boss.fetch(queue);
    }
    expect(fetched?.id).toBe(id);
    if (name === "retry") await boss.fail(queue, id, { message: "supplier down" });
    if (name === "failed") await boss.fail(queue, id, { message: "refused" });
    if (name === "completed") await boss.complete(queue, id);
    settled[name] = id;
  }
  const ids: Legacy["ids"] = {
    ...settled,
    created: await send({ orderId: "o-created" }),
    later: await send({ orderId: "o-later" }, { startAfter: new Date(Date.now() + 3_600_000) }),
    keyed: (await boss.send("post-update", { orderId: "o-keyed" }, { singletonKey: "evt-1" })) as string,
  };
  await boss.stop({ graceful: false, close: false, wait: true });
  return { ids };
}

describe.each(TEST_BACKENDS)("carrying pg-boss 10's jobs over, on %s", (backend) => {
  it("copies every job with its state, attempts and start time, queues the interrupted one again, and keeps the old schema renamed", async () => {
    const store = await openTestStore(backend);
    stores.push(store);
    const schema = jobsSchemaOf(store);
    const { ids } = await legacyJobs(store, schema);

    const jobs = createJobs({ store, schema, pollIntervalMs: 60_000 });
    running.push(jobs);
    await jobs.start();

    const get = (id: string, queue: "place-order" | "post-update" = "place-order") => jobs.getJob(queue, id);
    expect((await get(ids.created))?.state).toBe("created");
    expect((await get(ids.created))?.data).toEqual({ orderId: "o-created" });
    const later = await get(ids.later);
    expect(later?.state).toBe("created");
    expect(later!.startAfter.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    const retry = await get(ids.retry);
    expect(retry?.state).toBe("retry");
    expect(retry?.output).toMatchObject({ message: "supplier down" });
    // The run the old process never finished counts as an attempt and goes back in the queue now.
    const active = await get(ids.active);
    expect(active?.state).toBe("retry");
    expect(active!.startAfter.getTime()).toBeLessThanOrEqual(Date.now());
    expect((await get(ids.failed))?.state).toBe("failed");
    expect((await get(ids.completed))?.state).toBe("completed");
    const failed = await jobs.listFailed();
    expect(failed.map((f) => f.id)).toEqual([ids.failed]);
    expect(failed[0]?.error).toMatchObject({ message: "refused" });
    const keyed = await store.query(`SELECT singleton_key FROM ${schema}.job WHERE id = $1`, [ids.keyed]);
    expect(keyed.rows).toEqual([{ singleton_key: "evt-1" }]);

    // The old schema is still there, renamed, with its jobs, for the operator.
    const { rows: aside } = await store.query<{ old_schema: string; jobs_copied: number }>(
      "SELECT old_schema, jobs_copied FROM job_schema_carry_over WHERE new_schema = $1",
      [schema],
    );
    expect(aside).toHaveLength(1);
    expect(aside[0]!.old_schema).toMatch(new RegExp(`^${schema}_v10_\\d{8}$`));
    expect(aside[0]!.jobs_copied).toBe(7);
    const old = await store.query(`SELECT count(*)::int AS n FROM ${aside[0]!.old_schema}.job`);
    expect(old.rows[0]?.n).toBe(7);
    asides.push({ store, schema: aside[0]!.old_schema });

    // A failed job is retried by an admin as before.
    expect(await jobs.retry("place-order", ids.failed)).toBe(true);
    expect((await get(ids.failed))?.state).toBe("retry");

    // Started again: nothing is set aside or copied twice.
    await jobs.stop({ graceMs: 0 });
    const again = createJobs({ store, schema, pollIntervalMs: 60_000 });
    running.push(again);
    await again.start();
    const count = await store.query(`SELECT count(*)::int AS n FROM ${schema}.job`);
    expect(count.rows[0]?.n).toBe(7);
    const records = await store.query("SELECT count(*)::int AS n FROM job_schema_carry_over");
    expect(records.rows[0]?.n).toBe(1);
  });
});

describe.skipIf(!TEST_BACKENDS.includes("postgres"))("carrying pg-boss 10's jobs over, replicas", () => {
  it("copies each job once when several replicas start together on the old schema", async () => {
    const first = await openTestStore("postgres");
    stores.push(first);
    const schema = jobsSchemaOf(first);
    await legacyJobs(first, schema);
    const replicas = await Promise.all(
      [1, 2, 3].map(() => openStore({ databaseUrl: testDatabaseUrl(), schema: first.schema! })),
    );
    const all = replicas.map((store) => createJobs({ store, schema, pollIntervalMs: 60_000 }));
    running.push(...all);
    await Promise.all(all.map((jobs) => jobs.start()));
    const { rows } = await first.query<{ n: number; distinct_ids: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT id)::int AS distinct_ids FROM ${schema}.job`,
    );
    expect(rows[0]).toEqual({ n: 7, distinct_ids: 7 });
    const { rows: aside } = await first.query<{ old_schema: string }>(
      "SELECT old_schema FROM job_schema_carry_over",
    );
    expect(aside).toHaveLength(1);
    for (const jobs of running.splice(0)) await jobs.stop({ graceMs: 0 });
    for (const store of replicas) await store.close();
    asides.push({ store: first, schema: aside[0]!.old_schema });
  });
});
