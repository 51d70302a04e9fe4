import { randomUUID } from "node:crypto";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { PermanentJobError, RetryLaterError } from "../../src/jobs/errors.ts";
import { jobId, uuidv5 } from "../../src/jobs/ids.ts";
import { createJobs, type Jobs, type JobsOptions } from "../../src/jobs/index.ts";
import { QUEUE_NAMES } from "../../src/jobs/queues.ts";
import type { JobContext } from "../../src/jobs/worker.ts";
import type { Store } from "../../src/store/db.ts";
import { getTestStore, TEST_BACKENDS } from "../helpers/db.ts";

/** Resolves with the value of the first call of the returned function. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

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

describe("job ids", () => {
  it("computes RFC 9562 UUIDv5 (the DNS namespace example)", () => {
    expect(uuidv5("www.example.com", "6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBe(
      "2ed6657d-e927-568b-95e1-2665a8aea6a2",
    );
  });

  it("derives the same id for the same queue and entity, and different ones otherwise", () => {
    expect(jobId("place-order", "ord_1")).toBe(jobId("place-order", "ord_1"));
    expect(jobId("place-order", "ord_1")).not.toBe(jobId("post-update", "ord_1"));
    expect(jobId("place-order", "a:b", "c")).not.toBe(jobId("place-order", "a", "b:c"));
    expect(jobId("place-order", "ord_1", 2)).not.toBe(jobId("place-order", "ord_1"));
  });
});

describe.each(TEST_BACKENDS)("jobs on %s", (backend) => {
  let store: Store;
  let jobs: Jobs | null = null;

  const fastRetries: NonNullable<JobsOptions["policies"]> = {
    "place-order": { retryLimit: 2, retryDelaySeconds: 0, retryBackoff: false, expireInSeconds: 30 },
    "post-update": { retryLimit: 2, retryDelaySeconds: 0, retryBackoff: false, expireInSeconds: 30 },
  };

  async function startJobs(options: Partial<JobsOptions> = {}): Promise<Jobs> {
    jobs = createJobs({ store, pollIntervalMs: 200, policies: fastRetries, ...options });
    await jobs.start();
    return jobs;
  }

  beforeAll(async () => {
    store = await getTestStore(backend);
  });

  afterEach(async () => {
    await jobs?.stop({ graceMs: 1000 });
    if (jobs) await store.query(`DELETE FROM ${jobs.schema}.job`);
    jobs = null;
  });

  it("polls every queue with one prepared fetch, the queue's name a parameter", async () => {
    // pg-boss 12 writes the name into its fetch's text: each queue's poll was parsed and planned anew every time.
    const j = await startJobs();
    for (const queue of ["place-order", "post-update", "watchdog"] as const) j.work(queue, async () => {});
    const fetches = () =>
      store.query<{ statement: string }>(
        "SELECT statement FROM pg_prepared_statements WHERE statement ~ 'WITH\\s+next\\s+AS'",
      );
    // One session on PGlite: its prepared statements are all here. On PostgreSQL only those of the pool's
    // connection that runs this query are, possibly none.
    const { rows } = await until(fetches, (r) => store.kind === "postgres" || r.rows.length > 0);
    for (const { statement } of rows) {
      expect(statement).toContain("$1");
      for (const queue of QUEUE_NAMES) expect(statement).not.toContain(`'${queue}'`);
    }
    if (store.kind === "pglite") expect(rows).toHaveLength(1);
  });

  it("creates missing queues, applies a changed policy, and leaves unchanged queues alone on a restart", async () => {
    const restart = async (options: Partial<JobsOptions> = {}) => {
      const j = await startJobs(options);
      await j.stop({ graceMs: 0 });
      const { rows } = await store.query<{ name: string; retry_limit: number; updated_on: Date }>(
        `SELECT name, retry_limit, updated_on FROM ${j.schema}.queue ORDER BY name`,
      );
      return rows.map((q) => ({
        name: q.name,
        retryLimit: q.retry_limit,
        updatedOn: q.updated_on.getTime(),
      }));
    };
    // The approval, attention, reprocessing, budget and watchdog queues are created alongside and follow the same rules.
    const core = (queues: { name: string; retryLimit: number }[]) =>
      queues
        .filter(
          (q) =>
            !q.name.startsWith("approval-") &&
            !q.name.startsWith("attention-") &&
            q.name !== "reprocess-events" &&
            q.name !== "budget-alert" &&
            q.name !== "watchdog",
        )
        .map((q) => [q.name, q.retryLimit]);
    const first = await restart();
    expect(core(first)).toEqual([
      ["place-order", 2],
      ["post-update", 2],
      ["show-order", 10],
      ["workflow-deadline", 10],
    ]);
    expect(await restart()).toEqual(first);

    const changed = await restart({
      policies: { ...fastRetries, "post-update": { ...fastRetries["post-update"]!, retryLimit: 5 } },
    });
    expect(core(changed)).toEqual([
      ["place-order", 2],
      ["post-update", 5],
      ["show-order", 10],
      ["workflow-deadline", 10],
    ]);
    expect(changed.find((q) => q.name === "place-order")).toEqual(
      first.find((q) => q.name === "place-order"),
    );
  });

  it("runs a sent job once, with its data and attempt number, woken at once in the same process", async () => {
    // A long poll: only the wake-up on send can start the job quickly.
    const j = await startJobs({ pollIntervalMs: 10_000 });
    const ran = deferred<JobContext<{ orderId: string }>>();
    let runs = 0;
    j.work("place-order", async (job) => {
      runs++;
      ran.resolve(job);
    });
    const sentAt = performance.now();
    const id = await j.send("place-order", { orderId: "ord_1" });
    const job = await ran.promise;
    const latencyMs = performance.now() - sentAt;

    expect(job).toMatchObject({
      id,
      queue: "place-order",
      data: { orderId: "ord_1" },
      attempt: 1,
      maxAttempts: 3,
    });
    expect(job.isFinalAttempt).toBe(false);
    // Woken by the send, not by the next 10 s poll.
    expect(latencyMs).toBeLessThan(5_000);
    await until(
      () => j.getJob("place-order", id!),
      (info) => info?.state === "completed",
    );
    expect(runs).toBe(1);
  });

  it("starts every job sent in the same process without waiting for a poll, however fast they follow each other", async () => {
    // PGlite's now() ticks in milliseconds and pg-boss fetches only jobs whose start_after < now(): a fetch
    // woken in the same millisecond as the send found nothing, and the job waited for the poll (here: never).
    const j = await startJobs({ pollIntervalMs: 600_000 });
    let next = deferred<string>();
    j.work("post-update", async (job) => next.resolve(job.id));
    for (let n = 0; n < 300; n++) {
      const id = await j.send("post-update", { orderId: "ord_n", eventId: `evt_${n}` });
      let timer: NodeJS.Timeout | undefined;
      const ran = await Promise.race([
        next.promise,
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), 5_000);
        }),
      ]);
      clearTimeout(timer);
      expect(ran, `job ${n} was not started by the send's wake-up`).toBe(id);
      next = deferred<string>();
    }
  });

  it("picks up a job another process sent, at the next poll", async () => {
    const j = await startJobs();
    const other = createJobs({ store, pollIntervalMs: 200, policies: fastRetries });
    await other.start();
    const ran = deferred<string>();
    j.work("post-update", async (job) => ran.resolve(job.id));
    const id = await other.send("post-update", { orderId: "ord_1", eventId: "evt_1" });
    expect(await ran.promise).toBe(id);
    await other.stop({ graceMs: 0 });
  });

  it("enqueues in the caller's transaction: committed → runs; rolled back → no job", async () => {
    const j = await startJobs();
    const seen: string[] = [];
    j.work("place-order", async (job) => {
      seen.push(job.data.orderId);
    });
    await store.query("CREATE TABLE IF NOT EXISTS job_tx_rows (id text PRIMARY KEY)");

    const committedId = jobId("place-order", "ord_commit");
    await store.transaction(async (tx) => {
      await tx.query("INSERT INTO job_tx_rows (id) VALUES ('ord_commit')");
      await j.send("place-order", { orderId: "ord_commit" }, { tx, id: committedId });
    });

    const rolledBackId = jobId("place-order", "ord_rollback");
    await expect(
      store.transaction(async (tx) => {
        await tx.query("INSERT INTO job_tx_rows (id) VALUES ('ord_rollback')");
        await j.send("place-order", { orderId: "ord_rollback" }, { tx, id: rolledBackId });
        throw new Error("the Slack call failed");
      }),
    ).rejects.toThrow("the Slack call failed");

    await until(
      () => j.getJob("place-order", committedId),
      (info) => info?.state === "completed",
    );
    expect(await j.getJob("place-order", rolledBackId)).toBeNull();
    expect(seen).toEqual(["ord_commit"]);
  });

  it("ignores a repeated send with the same deterministic id", async () => {
    const j = await startJobs();
    const id = jobId("post-update", "evt_42");
    expect(await j.send("post-update", { orderId: "ord_1", eventId: "evt_42" }, { id })).toBe(id);
    expect(await j.send("post-update", { orderId: "ord_1", eventId: "evt_42" }, { id })).toBeNull();
    expect((await j.stats())["post-update"].ready).toBe(1);
  });

  it("retries a failing job and gives up after the queue's retry limit, keeping it visible with its error", async () => {
    const j = await startJobs();
    const attempts: Array<[number, boolean]> = [];
    j.work("place-order", async (job) => {
      attempts.push([job.attempt, job.isFinalAttempt]);
      throw Object.assign(new Error("supplier answered INTERNAL_SERVER_ERROR"), { code: "SERVER_ERROR" });
    });
    const id = (await j.send("place-order", { orderId: "ord_fail" }))!;
    await until(
      () => j.getJob("place-order", id),
      (info) => info?.state === "failed",
    );
    expect(attempts).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    const failed = await j.listFailed({ queue: "place-order" });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      id,
      queue: "place-order",
      data: { orderId: "ord_fail" },
      runs: 3,
      error: { name: "Error", code: "SERVER_ERROR", message: "supplier answered INTERNAL_SERVER_ERROR" },
    });
    expect((await j.stats())["place-order"].failed).toBe(1);
  });

  it("retries with the configured backoff (pg-boss computes the delay)", async () => {
    const j = await startJobs({
      policies: {
        "post-update": { retryLimit: 3, retryDelaySeconds: 60, retryBackoff: true, expireInSeconds: 30 },
      },
    });
    j.work("post-update", async () => {
      throw new Error("Slack is down");
    });
    const id = (await j.send("post-update", { orderId: "ord_1", eventId: "evt_backoff" }))!;
    const info = await until(
      () => j.getJob("post-update", id),
      (i) => i?.state === "retry",
    );
    const delaySeconds = (info!.startAfter.getTime() - Date.now()) / 1000;
    // First retry: between retryDelay and twice that.
    expect(delaySeconds).toBeGreaterThan(50);
    expect(delaySeconds).toBeLessThanOrEqual(120);
    expect((await j.stats())["post-update"]).toMatchObject({ scheduled: 1, ready: 0 });
  });

  it("fails a job at once on PermanentJobError, without using its retries", async () => {
    const j = await startJobs();
    let runs = 0;
    j.work("place-order", async () => {
      runs++;
      throw new PermanentJobError("the order no longer exists");
    });
    const id = (await j.send("place-order", { orderId: "gone" }))!;
    const info = await until(
      () => j.getJob("place-order", id),
      (i) => i?.state === "failed",
    );
    expect(runs).toBe(1);
    expect(info?.output).toMatchObject({ code: "PERMANENT_FAILURE", message: "the order no longer exists" });
  });

  it("re-schedules a job after RetryLaterError's delay without using up an attempt", async () => {
    const j = await startJobs();
    const runs: Array<{ at: number; attempt: number; final: boolean }> = [];
    const done = deferred();
    j.work("post-update", async (job) => {
      runs.push({ at: Date.now(), attempt: job.attempt, final: job.isFinalAttempt });
      if (runs.length <= 3) throw new RetryLaterError(300, "Slack 429, Retry-After: 0.3 s");
      done.resolve();
    });
    const id = (await j.send("post-update", { orderId: "ord_1", eventId: "evt_429" }))!;
    await done.promise;
    // Three deferrals on a queue with 2 retries: still not the final attempt, and each waited ~300 ms.
    expect(runs.map((r) => r.final)).toEqual([false, false, false, false]);
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.at - runs[i - 1]!.at).toBeGreaterThanOrEqual(250);
    await until(
      () => j.getJob("post-update", id),
      (info) => info?.state === "completed",
    );
  });

  it("aborts a run that exceeds the queue's expiry and retries it", async () => {
    const j = await startJobs({
      policies: {
        "place-order": { retryLimit: 1, retryDelaySeconds: 0, retryBackoff: false, expireInSeconds: 1 },
      },
    });
    const reasons: unknown[] = [];
    j.work("place-order", async (job) => {
      if (job.attempt === 1) {
        await new Promise((resolve) => job.signal.addEventListener("abort", resolve));
        reasons.push(job.signal.reason);
      }
    });
    const id = (await j.send("place-order", { orderId: "slow" }))!;
    const info = await until(
      () => j.getJob("place-order", id),
      (i) => i?.state === "completed",
    );
    expect(info?.runs).toBe(2);
    expect(reasons[0]).toMatchObject({ code: "JOB_TIMED_OUT" });
  });

  it("on stop, stops fetching and lets a running job finish within the grace period", async () => {
    const j = await startJobs();
    const started = deferred();
    let finished = false;
    j.work("place-order", async () => {
      started.resolve();
      await new Promise((r) => setTimeout(r, 300));
      finished = true;
    });
    const id = (await j.send("place-order", { orderId: "graceful" }))!;
    await started.promise;
    await j.stop({ graceMs: 5_000 });
    expect(finished).toBe(true);
    expect((await j.getJob("place-order", id))?.state).toBe("completed");
    await expect(j.send("place-order", {} as never)).rejects.toMatchObject({ code: "JOBS_NOT_STARTED" });
  });

  it("on stop past the deadline, aborts the running job and queues it again without using an attempt", async () => {
    const j = await startJobs();
    const started = deferred();
    let aborted: unknown = null;
    j.work("place-order", async (job) => {
      started.resolve();
      await new Promise((resolve) => job.signal.addEventListener("abort", resolve));
      aborted = job.signal.reason;
    });
    const id = (await j.send("place-order", { orderId: "interrupted" }))!;
    await started.promise;
    const stopStarted = Date.now();
    await j.stop({ graceMs: 200 });
    // The job would never end by itself: stop ended it.
    expect(Date.now() - stopStarted).toBeLessThan(10_000);
    expect(aborted).toMatchObject({ code: "JOB_INTERRUPTED" });
    const info = await j.getJob("place-order", id);
    expect(info).toMatchObject({ state: "retry", retryLimit: 3 });

    // The next process runs it, and it still has all its retries.
    const next = await startJobs();
    const ran = deferred<JobContext<unknown>>();
    next.work("place-order", async (job) => ran.resolve(job));
    const job = await ran.promise;
    expect(job.id).toBe(id);
    expect(job.isFinalAttempt).toBe(false);
    expect(job.maxAttempts - job.attempt).toBe(2);
  });

  it("reports queue depth and the age of the oldest ready job", async () => {
    const j = await startJobs();
    await j.send("post-update", { orderId: "ord_1", eventId: "evt_1" });
    await j.send(
      "post-update",
      { orderId: "ord_1", eventId: "evt_2" },
      { startAfter: new Date(Date.now() + 60_000) },
    );
    await new Promise((r) => setTimeout(r, 50));
    const stats = await j.stats();
    expect(stats["post-update"]).toMatchObject({ ready: 1, scheduled: 1, active: 0, failed: 0 });
    expect(stats["post-update"].oldestReadyAgeMs).toBeGreaterThanOrEqual(0);
    expect(stats["place-order"]).toEqual({
      ready: 0,
      scheduled: 0,
      active: 0,
      failed: 0,
      oldestReadyAgeMs: 0,
    });
  });

  it("cancels a waiting job and retries a failed one on request", async () => {
    const j = await startJobs();
    const waiting = (await j.send(
      "post-update",
      { orderId: "ord_1", eventId: "evt_1" },
      { startAfter: new Date(Date.now() + 60_000) },
    ))!;
    expect(await j.cancel("post-update", waiting)).toBe(true);
    expect((await j.getJob("post-update", waiting))?.state).toBe("cancelled");

    let fail = true;
    j.work("place-order", async () => {
      if (fail) throw new PermanentJobError("not yet");
    });
    const id = (await j.send("place-order", { orderId: randomUUID() }))!;
    await until(
      () => j.getJob("place-order", id),
      (i) => i?.state === "failed",
    );
    fail = false;
    // Inside a transaction that rolls back, the retry does not happen.
    await expect(
      store.transaction(async (tx) => {
        expect(await j.retry("place-order", id, { tx })).toBe(true);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect((await j.getJob("place-order", id))?.state).toBe("failed");
    // Committed, it runs.
    expect(await store.transaction((tx) => j.retry("place-order", id, { tx }))).toBe(true);
    await until(
      () => j.getJob("place-order", id),
      (i) => i?.state === "completed",
    );
    expect(await j.retry("place-order", id)).toBe(false);
  });

  it("refuses an unknown queue name", async () => {
    const j = await startJobs();
    await expect(j.send("send-fax" as never, {} as never)).rejects.toMatchObject({ code: "UNKNOWN_QUEUE" });
  });
});
