import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { jobId } from "../../src/jobs/ids.ts";
import { createJobs, type Jobs, type JobsOptions } from "../../src/jobs/index.ts";
import type { Store } from "../../src/store/db.ts";
import { getTestStore, TEST_BACKENDS } from "../helpers/db.ts";

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() - started > timeoutMs)
      throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(TEST_BACKENDS)("typed job payloads on %s", (backend) => {
  let store: Store;
  const started: Jobs[] = [];
  const fast = { retryLimit: 2, retryDelaySeconds: 0, retryBackoff: false, expireInSeconds: 30 };
  const policies: NonNullable<JobsOptions["policies"]> = {
    "place-order": fast,
    "show-order": fast,
    "workflow-deadline": fast,
    "post-update": fast,
  };

  async function startJobs(): Promise<Jobs> {
    const jobs = createJobs({ store, pollIntervalMs: 200, policies });
    started.push(jobs);
    await jobs.start();
    return jobs;
  }

  beforeAll(async () => {
    store = await getTestStore(backend);
  });

  afterEach(async () => {
    for (const jobs of started.splice(0)) await jobs.stop({ graceMs: 1000 });
    const schema = createJobs({ store }).schema;
    await store.query(`DELETE FROM ${schema}.job`);
  });

  it("hands each handler its payload as its queue's schema parsed it", async () => {
    const jobs = await startJobs();
    const seen: unknown[] = [];
    jobs.work("post-update", async (job) => {
      seen.push(job.data);
    });
    // Keys the schema does not know are dropped at the boundary.
    await jobs.send("post-update", { orderId: "ord_1", eventId: "evt_1", extra: true } as never);
    await until(
      async () => seen.length,
      (n) => n === 1,
    );
    expect(seen).toEqual([{ orderId: "ord_1", eventId: "evt_1" }]);
  });

  it("fails a job whose payload does not fit its queue at once, without running the handler", async () => {
    const jobs = await startJobs();
    let runs = 0;
    jobs.work("place-order", async () => {
      runs++;
    });
    const id = (await jobs.send("place-order", { order: "ord_typo" } as never))!;
    const info = await until(
      () => jobs.getJob("place-order", id),
      (i) => i?.state === "failed",
    );
    expect(runs).toBe(0);
    expect(info?.runs).toBe(1);
    expect(info?.output).toMatchObject({
      code: "PERMANENT_FAILURE",
      message: expect.stringMatching(/does not fit its queue/),
    });
  });

  it("after an upgrade, runs the jobs the previous version queued on place-order with the handler of their kind", async () => {
    // The previous version: one queue, three payload shapes, jobs still waiting when it stopped.
    const before = await startJobs();
    await before.send("place-order", { orderId: "ord_place" }, { id: jobId("place-order", "ord_place") });
    await before.send("place-order", { orderId: "ord_show", show: true } as never, {
      id: jobId("place-order", "ord_show", "show", "2026-01-01T00:00:00.000Z"),
    });
    await before.send("place-order", { workflowDeadlineFor: "ord_deadline" } as never, {
      id: jobId("place-order", "ord_deadline", "workflow-deadline"),
    });
    await before.stop({ graceMs: 0 });

    // This version starts on the same database.
    const after = await startJobs();
    const ran: Array<[string, unknown]> = [];
    after.work("place-order", async (job) => {
      ran.push(["place-order", job.data]);
    });
    after.work("show-order", async (job) => {
      ran.push(["show-order", job.data]);
    });
    after.work("workflow-deadline", async (job) => {
      ran.push(["workflow-deadline", job.data]);
    });
    await until(
      async () => ran.length,
      (n) => n === 3,
    );
    expect(ran).toEqual(
      expect.arrayContaining([
        ["place-order", { orderId: "ord_place" }],
        ["show-order", { orderId: "ord_show" }],
        ["workflow-deadline", { orderId: "ord_deadline" }],
      ]),
    );
    // A handler has returned before its job is marked done: wait for the queue to settle, then judge it.
    const stats = await until(
      () => after.stats(),
      (s) => s["place-order"]?.active === 0,
    );
    expect(stats["place-order"]).toMatchObject({ ready: 0, active: 0, failed: 0 });
  });
});
