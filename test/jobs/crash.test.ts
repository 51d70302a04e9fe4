import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PgBoss } from "pg-boss";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { jobId } from "../../src/jobs/ids.ts";
import { createJobs, type Jobs } from "../../src/jobs/index.ts";
import { createJobOwners, type JobOwnersOptions } from "../../src/jobs/pgboss/owners.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import {
  openTestStore,
  pgliteTemplate,
  TEST_BACKENDS,
  testDatabaseUrl,
  uniqueSchemaName,
} from "../helpers/db.ts";
import { CRASH_POLICY, crashHandler } from "./fixtures/crash-effect.ts";

const CHILD = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url));

/** Runs the child until it holds both jobs, then SIGKILLs it. */
async function runChildUntilHolding(env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ?? code)),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`child never held both jobs:\n${stdout}\n${stderr}`)),
      30_000,
    );
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("HOLDING before") && stdout.includes("HOLDING after")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", () => reject(new Error(`child exited early:\n${stdout}\n${stderr}`)));
  });
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
}

describe.each(TEST_BACKENDS)("a process killed with jobs in flight, on %s", (backend) => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  it("completes every job after a restart, each effect applied exactly once", async () => {
    let env: Record<string, string>;
    let reopen: () => Promise<Store>;
    if (backend === "pglite") {
      const dataDir = mkdtempSync(join(tmpdir(), "od-crash-"));
      cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
      // Seed the directory from the migrated template so the child skips initdb.
      const seeded = await openStore({ dataDir, pgliteTemplate: await pgliteTemplate() });
      await seeded.close();
      env = { CRASH_DATA_DIR: dataDir };
      // The lock file still names the killed child: it is stale and taken over.
      reopen = () => openStore({ dataDir });
    } else {
      const schema = uniqueSchemaName();
      // A run that expires only after 5 minutes: the jobs must come back because their process died.
      env = { CRASH_DATABASE_URL: testDatabaseUrl(), CRASH_SCHEMA: schema, CRASH_EXPIRE_SECONDS: "300" };
      reopen = () => openStore({ databaseUrl: testDatabaseUrl(), schema });
      cleanup.push(async () => {
        const admin = await openStore({ databaseUrl: testDatabaseUrl(), migrate: false });
        await admin.query(
          `DROP SCHEMA IF EXISTS ${schema} CASCADE; DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`,
        );
        await admin.close();
      });
    }

    await runChildUntilHolding(env);

    const store = await reopen();
    cleanup.push(() => store.close());
    // On PGlite, start-up requeues the interrupted jobs at once. On PostgreSQL a live replica could still be
    // working on them: they come back once their process's advisory lock is gone for the grace period.
    const started = Date.now();
    const jobs = createJobs({
      store,
      pollIntervalMs: 100,
      maintenanceIntervalSeconds: 1,
      policies: { "place-order": { ...CRASH_POLICY, expireInSeconds: 300 } },
      owners: { sweepIntervalMs: 200, graceMs: 500 },
    });
    cleanup.push(() => jobs.stop({ graceMs: 0 }));
    await jobs.start();
    jobs.work("place-order", crashHandler(store, { hang: false }), { concurrency: 2 });

    const ids = ["before", "after"].map((key) => jobId("place-order", "crash", key));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const states = await Promise.all(ids.map(async (id) => (await jobs.getJob("place-order", id))?.state));
      if (states.every((s) => s === "completed")) break;
      if (Date.now() > deadline) throw new Error(`jobs not completed after restart: ${states.join(", ")}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // Well before the 5-minute expiry.
    expect(Date.now() - started).toBeLessThan(15_000);
    const effects = await store.query(
      "SELECT key, count(*)::int AS n FROM crash_effects GROUP BY key ORDER BY key",
    );
    expect(effects.rows).toEqual([
      { key: "after", n: 1 },
      { key: "before", n: 1 },
    ]);
    const runs = await store.query(
      "SELECT key, count(DISTINCT pid)::int AS processes FROM crash_runs GROUP BY key ORDER BY key",
    );
    // Each job ran in the killed child and again after the restart.
    expect(runs.rows).toEqual([
      { key: "after", processes: 2 },
      { key: "before", processes: 2 },
    ]);
  });
});

/** Two processes' stores on one fresh schema of the CI server, and how to drop it. */
async function sharedSchema(): Promise<{ schema: string; a: Store; b: Store; drop(): Promise<void> }> {
  const schema = uniqueSchemaName();
  const a = await openStore({ databaseUrl: testDatabaseUrl(), schema });
  const b = await openStore({ databaseUrl: testDatabaseUrl(), schema });
  return {
    schema,
    a,
    b,
    async drop() {
      await a.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      await a.close();
      await b.close();
    },
  };
}

/** A process's job owners on `store`, driven directly by the test (no workers). */
function ownersOf(store: Store, schema: string, options: Partial<JobOwnersOptions> = {}) {
  let boss: Promise<PgBoss> | undefined;
  return createJobOwners({
    store,
    jobTable: `${schema}_jobs.job`,
    schema: `${schema}_jobs`,
    logger: pino({ level: "silent" }),
    async fetch(queue, batchSize, tx) {
      boss ??= bossOn(store, `${schema}_jobs`);
      const db = { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) };
      return (await boss).fetch(queue, { batchSize, includeMetadata: true, db });
    },
    ...options,
  });
}

/** pg-boss itself on the test's schema (installed by a `createJobs` there): another process's view of it. */
async function bossOn(store: Store, jobsSchema: string): Promise<PgBoss> {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => store.query(text, values) },
    schema: jobsSchema,
    supervise: false,
    migrate: false,
    schedule: false,
    registerInstance: false,
  });
  await boss.start();
  return boss;
}

async function stateOf(jobs: Jobs, id: string): Promise<string | undefined> {
  return (await jobs.getJob("place-order", id))?.state;
}

/** Polls until the job's state is `wanted`, or `timeoutMs` passes. */
async function until(jobs: Jobs, id: string, wanted: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await stateOf(jobs, id)) !== wanted && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
}

// PostgreSQL only: job owners exist only there (the embedded store is one process and re-queues what a crash left
// at start-up, tested above). Skipped when DATABASE_URL is unset; `.ci/run` sets it, so CI always runs these.
describe.skipIf(!TEST_BACKENDS.includes("postgres"))("job owners, on postgres", () => {
  it("take back within seconds the jobs of a process killed right after fetching: the fetch claims them", async () => {
    const { schema, a, b, drop } = await sharedSchema();
    const jobsB = createJobs({
      store: b,
      pollIntervalMs: 50,
      owners: { sweepIntervalMs: 100, graceMs: 200 },
    });
    const dying = ownersOf(a, schema);
    const ran: string[] = [];
    try {
      await jobsB.start();
      // B has no worker on the queue yet: the job waits for the dying process to fetch it.
      const id = (await jobsB.send("place-order", { orderId: "fetched-then-killed" })) ?? "";
      await dying.start();
      expect((await dying.fetch("place-order", 1)).map((j) => j.id)).toEqual([id]);
      expect(await stateOf(jobsB, id)).toBe("active");
      // Killed with nothing run: its session, and so its lock, is gone.
      await dying.stop();
      jobsB.work("place-order", async (job) => {
        ran.push(job.id);
      });
      await until(jobsB, id, "completed");
      expect(await stateOf(jobsB, id)).toBe("completed");
      expect(ran).toEqual([id]);
    } finally {
      await dying.stop();
      await jobsB.stop({ graceMs: 0 });
      await drop();
    }
  });

  it("leave a job queued, for the next fetch at once, when its process dies between pg-boss's fetch and the claim", async () => {
    const { schema, a, b, drop } = await sharedSchema();
    const jobsB = createJobs({ store: b, pollIntervalMs: 50, owners: { sweepIntervalMs: 60_000 } });
    // The dying process's connection ends right after pg-boss handed it the job, before the claim: as when the
    // process is killed there, PostgreSQL sees the session go in the middle of the transaction.
    const dying = ownersOf(a, schema, {
      async fetch(queue, batchSize, tx) {
        const boss = await bossOn(a, `${schema}_jobs`);
        const db = { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) };
        const fetched = await boss.fetch(queue, { batchSize, includeMetadata: true, db });
        expect(fetched).toHaveLength(1);
        await tx.query("SELECT pg_terminate_backend(pg_backend_pid())");
        return fetched;
      },
    });
    const ran: string[] = [];
    try {
      await jobsB.start();
      const id = (await jobsB.send("place-order", { orderId: "fetched-then-killed-before-claim" })) ?? "";
      await dying.start();
      await expect(dying.fetch("place-order", 1)).rejects.toThrow();
      expect(await stateOf(jobsB, id)).toBe("created");
      // No sweep, no heartbeat: the next fetch takes it.
      jobsB.work("place-order", async (job) => {
        ran.push(job.id);
      });
      await until(jobsB, id, "completed");
      expect(ran).toEqual([id]);
    } finally {
      await dying.stop();
      await jobsB.stop({ graceMs: 0 });
      await drop();
    }
  });

  it("take back after the grace a live process's own jobs that none of its workers runs, and never those it runs", async () => {
    const { schema, a, drop } = await sharedSchema();
    const jobs = createJobs({ store: a, pollIntervalMs: 60_000 });
    const running = new Set<string>();
    const owners = ownersOf(a, schema, {
      sweepIntervalMs: 50,
      graceMs: 300,
      isRunning: (_queue, id) => running.has(id),
    });
    try {
      await jobs.start();
      const lost = (await jobs.send("place-order", { orderId: "answer-lost" })) ?? "";
      const held = (await jobs.send("place-order", { orderId: "still-running" })) ?? "";
      await owners.start();
      // Both fetched and marked as ours; only one reached a worker (the other's answer never arrived).
      expect((await owners.fetch("place-order", 2)).map((j) => j.id).sort()).toEqual([lost, held].sort());
      running.add(held);
      await until(jobs, lost, "retry", 3_000);
      expect(await stateOf(jobs, lost)).toBe("retry");
      expect(await stateOf(jobs, held)).toBe("active");
    } finally {
      await owners.stop();
      await jobs.stop({ graceMs: 0 });
      await drop();
    }
  });

  it("never run a job in a second process while its first run goes on, when pg-boss hands it out again", async () => {
    // As when a starved process misses its heartbeat: pg-boss takes the job back and another process fetches it.
    const { schema, a, b, drop } = await sharedSchema();
    const policies = { "place-order": { retryDelaySeconds: 0, retryBackoff: false, retryLimit: 3 } };
    const jobsA = createJobs({ store: a, pollIntervalMs: 50, policies });
    const jobsB = createJobs({ store: b, pollIntervalMs: 50, policies });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runs: string[] = [];
    try {
      await jobsA.start();
      await jobsB.start();
      jobsA.work("place-order", async () => {
        runs.push("a");
        await held;
      });
      const id = (await jobsA.send("place-order", { orderId: "handed-out-twice" })) ?? "";
      const deadline = Date.now() + 5_000;
      while (runs.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await (await bossOn(a, `${schema}_jobs`)).fail("place-order", id, { message: "job heartbeat timeout" });
      jobsB.work("place-order", async () => {
        runs.push("b");
      });
      // B fetched it (a second run counted) but left it to A.
      while ((await jobsB.getJob("place-order", id))?.runs !== 2 && Date.now() < deadline + 5_000) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await jobsB.getJob("place-order", id))?.runs).toBe(2);
      release();
      await until(jobsA, id, "completed");
      expect(await stateOf(jobsA, id)).toBe("completed");
      expect(runs).toEqual(["a"]);
    } finally {
      release();
      await jobsA.stop({ graceMs: 0 });
      await jobsB.stop({ graceMs: 0 });
      await drop();
    }
  });

  it("never take back a live process's jobs from another process, however long they run", async () => {
    const { a, b, drop } = await sharedSchema();
    const fast = { sweepIntervalMs: 100, graceMs: 200 };
    const jobsA = createJobs({ store: a, pollIntervalMs: 50, owners: fast });
    const jobsB = createJobs({ store: b, pollIntervalMs: 50, owners: fast });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    try {
      await jobsA.start();
      await jobsB.start();
      jobsA.work("place-order", async () => {
        runs++;
        await held;
      });
      const id = (await jobsA.send("place-order", { orderId: "live" })) ?? "";
      await new Promise((r) => setTimeout(r, 1_500)); // several sweeps of B, past its grace
      expect(await stateOf(jobsB, id)).toBe("active");
      release();
      await until(jobsA, id, "completed");
      expect(await stateOf(jobsA, id)).toBe("completed");
      expect(runs).toBe(1);
    } finally {
      release();
      await jobsA.stop({ graceMs: 0 });
      await jobsB.stop({ graceMs: 0 });
      await drop();
    }
  });
});

describe.each(TEST_BACKENDS)("a job handed out again in the process running it, on %s", (backend) => {
  it("is not run a second time while its first run goes on, and ends completed", async () => {
    // As when this process, starved, misses its heartbeat or expiry: pg-boss takes the job back and the same
    // process's worker, with a free slot, fetches it again.
    const store = await openTestStore(backend);
    const policies = { "place-order": { retryDelaySeconds: 0, retryBackoff: false, retryLimit: 3 } };
    const jobs = createJobs({ store, pollIntervalMs: 50, policies });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    try {
      await jobs.start();
      jobs.work(
        "place-order",
        async () => {
          runs++;
          await held;
        },
        { concurrency: 2 },
      );
      const id = (await jobs.send("place-order", { orderId: "handed-out-here" })) ?? "";
      const deadline = Date.now() + 10_000;
      while (runs === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await (await bossOn(store, jobs.schema)).fail("place-order", id, { message: "job heartbeat timeout" });
      while ((await jobs.getJob("place-order", id))?.runs !== 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await jobs.getJob("place-order", id))?.runs).toBe(2);
      release();
      await until(jobs, id, "completed");
      expect(await stateOf(jobs, id)).toBe("completed");
      expect(runs).toBe(1);
    } finally {
      release();
      await jobs.stop({ graceMs: 0 });
      await store.close();
    }
  });
});
