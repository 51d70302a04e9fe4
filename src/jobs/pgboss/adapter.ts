/**
 * Durable jobs on the store's own database (pg-boss 10), the same code on PGlite and PostgreSQL.
 *
 * - pg-boss runs over the store's pool (`db: { executeSql }`), so the embedded store's single connection is
 *   shared and a job can be enqueued inside the transaction that writes its row: `send(q, data, { tx })` hands
 *   pg-boss the transaction's connection; roll back → no job.
 * - We run our own fetch loop (worker.ts) instead of `boss.work()` to get: attempt numbers in the handler,
 *   `RetryLaterError`/`PermanentJobError`, an abort signal, an immediate wake-up when this process sends, and a
 *   shutdown that puts interrupted jobs back without using up an attempt.
 * - Crash recovery: on PostgreSQL each process marks the jobs it fetches with its key (in the fetch statement
 *   itself) and holds an advisory lock on that key; a job whose process died (no lock), or one of its own that
 *   none of its workers runs, is queued again within seconds (owners.ts), and pg-boss's expiry remains the
 *   backstop. On the embedded store the lock file guarantees a single process,
 *   so any job still `active` at start-up was interrupted by a crash and is queued again immediately.
 * - A few statements touch pg-boss's job table directly (job-table.ts: defer, fail without retry, requeue,
 *   stats); they use pg-boss 10's documented table layout, which is pinned (`pg-boss ~10.4`).
 */
import PgBoss from "pg-boss";
import { type Logger, pino } from "pino";
import { withAdvisoryLock } from "../../store/advisory-lock.ts";
import { afterCommit, type Store } from "../../store/db.ts";
import { STARTUP_LOCK_KEY_SQL } from "../../store/migrate.ts";
import { dispatcher, type Handlers } from "../dispatch.ts";
import { JobsNotStartedError, UnknownQueueError } from "../errors.ts";
import type { Jobs, ManyJob, WorkOptions } from "../jobs.ts";
import type { JobData } from "../payloads.ts";
import { DEFAULT_POLICIES, isQueueName, QUEUE_NAMES, type QueueName, type QueuePolicy } from "../queues.ts";
import { type FetchedJob, type JobHandler, QueueWorker, type WorkerDeps } from "../worker.ts";
import { requeueInterrupted } from "./interrupted.ts";
import { createJobTable } from "./job-table.ts";
import { createJobOwners } from "./owners.ts";
import { createWakeTimers } from "./wake.ts";

export interface JobsOptions {
  store: Store;
  logger?: Logger;
  /** pg-boss's schema. Default `pgboss`, or `<store schema>_jobs` when the store lives in its own schema. */
  schema?: string;
  /** Per-queue overrides of `DEFAULT_POLICIES`. */
  policies?: Partial<Record<QueueName, Partial<QueuePolicy>>>;
  /** How often an idle worker looks for jobs sent by other processes (default 1000 ms). */
  pollIntervalMs?: number;
  /** How often expired runs are retried and old jobs archived (default 60 s; pg-boss minimum 1 s). */
  maintenanceIntervalSeconds?: number;
  /** How long failed jobs stay listed by `listFailed()` (default 14 days). */
  failedRetentionDays?: number;
  /** Requeue jobs left `active` by a crashed process at start (default: on the embedded store only). */
  recoverInterruptedOnStart?: boolean;
  /**
   * PostgreSQL: take back the jobs of a process that died (owners.ts). Default on; `false` leaves them to
   * pg-boss's expiry.
   */
  owners?: false | { sweepIntervalMs?: number; graceMs?: number };
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,49}$/;

type QueueSettings = Pick<
  PgBoss.Queue,
  "policy" | "retryLimit" | "retryDelay" | "retryBackoff" | "expireInSeconds"
>;

function samePolicy(current: QueueSettings, wanted: QueueSettings): boolean {
  return (
    current.policy === wanted.policy &&
    current.retryLimit === wanted.retryLimit &&
    current.retryDelay === wanted.retryDelay &&
    current.retryBackoff === wanted.retryBackoff &&
    current.expireInSeconds === wanted.expireInSeconds
  );
}

function bossJobs(queue: QueueName, many: readonly ManyJob[]): PgBoss.JobInsert[] {
  return many.map((j) => ({
    name: queue,
    data: j.data,
    ...(j.id && { id: j.id }),
    ...(j.startAfter && { startAfter: j.startAfter.toISOString() }),
  }));
}

/** Milliseconds until the first of `many` is due (≤ 0: now). */
function soonest(many: readonly ManyJob[]): number {
  const now = Date.now();
  return Math.min(...many.map((j) => (j.startAfter ? j.startAfter.getTime() - now : 0)));
}

export function createJobs(options: JobsOptions): Jobs {
  const { store } = options;
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "jobs" });
  const schema = options.schema ?? (store.schema ? `${store.schema}_jobs` : "pgboss");
  if (!SCHEMA_NAME.test(schema)) throw new TypeError(`jobs schema must match ${SCHEMA_NAME} (got ${schema})`);
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const recover = options.recoverInterruptedOnStart ?? store.kind === "pglite";
  const policies = Object.fromEntries(
    QUEUE_NAMES.map((q) => [q, { ...DEFAULT_POLICIES[q], ...options.policies?.[q] }]),
  ) as Record<QueueName, QueuePolicy>;

  const boss = new PgBoss({
    db: { executeSql: (text: string, values: unknown[]) => store.query(text, values) },
    schema,
    schedule: false,
    supervise: true,
    migrate: true,
    maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 60,
    archiveCompletedAfterSeconds: 12 * 3600,
    archiveFailedAfterSeconds: (options.failedRetentionDays ?? 14) * 86_400,
    deleteAfterDays: 7,
  });
  boss.on("error", (error) => logger.error({ err: error }, "pg-boss error"));

  const workers = new Map<QueueName, QueueWorker<unknown>>();
  const handlers: Handlers = {};
  let state: "new" | "starting" | "started" | "stopping" | "stopped" = "new";
  let stopped: Promise<void> | null = null;

  const job = `${schema}.job`;
  const table = createJobTable(store, job);
  const wake = createWakeTimers({
    pglite: store.kind === "pglite",
    worker: (queue) => (state === "started" ? workers.get(queue) : undefined),
  });
  const scheduleWake = wake.schedule;
  const owners =
    store.kind === "postgres" && options.owners !== false
      ? createJobOwners({
          store,
          jobTable: job,
          schema,
          logger,
          ...options.owners,
          isRunning: (queue, id) => (isQueueName(queue) && workers.get(queue)?.isRunning(id)) === true,
          onRecovered: (queues) => {
            for (const queue of queues) if (isQueueName(queue)) scheduleWake(queue, 0);
          },
        })
      : null;

  const deps: WorkerDeps = {
    async fetch(queue, batchSize) {
      if (owners) return owners.fetch(queue, batchSize);
      const fetched = await boss.fetch<unknown>(queue, { batchSize, includeMetadata: true });
      return fetched.map(
        (j): FetchedJob => ({
          id: j.id,
          data: j.data,
          retryCount: j.retryCount,
          retryLimit: j.retryLimit,
          expireInSeconds: Number(j.expireInSeconds),
          createdOn: j.createdOn,
          output: j.output,
        }),
      );
    },
    async complete(queue, id) {
      await boss.complete(queue, id);
    },
    async fail(queue, id, error) {
      await boss.fail(queue, id, error);
    },
    async failPermanently(queue, id, error) {
      await table.exhaustRetries(queue, id);
      await boss.fail(queue, id, error);
    },
    defer: table.defer,
    requeue: table.requeue,
    scheduleWake,
  };

  /** Jobs `active` at start on the embedded store belong to a process that died: queue them again now. */
  async function recoverInterrupted(): Promise<void> {
    await requeueInterrupted(store, { jobTable: job, schema }, { sql: "true", params: [] }, logger);
  }

  function assertQueue(queue: string): asserts queue is QueueName {
    if (!isQueueName(queue)) throw new UnknownQueueError(queue);
  }

  /** pg-boss's schema (installed or migrated) and our queues with their current policies. */
  async function install(): Promise<void> {
    await boss.start();
    // One read on a usual start: a queue is created only when missing and updated only when its policy changed.
    // (Creating and updating each queue every time took ≈ 0.25 s of a 1–2 s embedded start: the first call of
    // pg-boss's create_queue() compiles its PL/pgSQL.)
    const existing = new Map((await boss.getQueues()).map((q) => [q.name, q]));
    for (const queue of QUEUE_NAMES) {
      const p = policies[queue];
      const queueOptions = {
        name: queue,
        policy: "standard" as const,
        retryLimit: p.retryLimit,
        retryDelay: p.retryDelaySeconds,
        retryBackoff: p.retryBackoff,
        expireInSeconds: p.expireInSeconds,
      };
      const current = existing.get(queue);
      if (!current) await boss.createQueue(queue, queueOptions);
      else if (!samePolicy(current, queueOptions)) await boss.updateQueue(queue, queueOptions);
    }
  }

  return {
    schema,

    async start() {
      if (state !== "new") return;
      state = "starting";
      // Replicas started together on an empty database: pg-boss's own install is not safe to run at once
      // (its lock is taken inside the transaction that creates the schema, so a waiter fails on a duplicate
      // schema or deadlocks creating queues). It runs under the migrations' lock instead.
      if (store.kind === "postgres") await withAdvisoryLock(store, STARTUP_LOCK_KEY_SQL, install);
      else await install();
      if (recover) await recoverInterrupted();
      await owners?.start();
      state = "started";
      for (const worker of workers.values()) worker.start();
      logger.info({ schema, queues: QUEUE_NAMES }, "jobs started");
    },

    async send(queue, data, sendOptions = {}) {
      assertQueue(queue);
      if (state !== "started") throw new JobsNotStartedError();
      const { tx } = sendOptions;
      const id = await boss.send(queue, data, {
        ...(sendOptions.id && { id: sendOptions.id }),
        ...(sendOptions.startAfter && { startAfter: sendOptions.startAfter }),
        ...(tx && { db: { executeSql: (text: string, values: unknown[]) => tx.query(text, values) } }),
      });
      if (id !== null) {
        const delayMs = sendOptions.startAfter ? sendOptions.startAfter.getTime() - Date.now() : 0;
        afterCommit(tx ?? store, () => scheduleWake(queue, delayMs));
      }
      return id;
    },

    async sendMany(queue, many, sendOptions = {}) {
      assertQueue(queue);
      if (state !== "started") throw new JobsNotStartedError();
      if (many.length === 0) return;
      const { tx } = sendOptions;
      await boss.insert(
        bossJobs(queue, many),
        tx ? { db: { executeSql: (text: string, values: unknown[]) => tx.query(text, values) } } : {},
      );
      afterCommit(tx ?? store, () => scheduleWake(queue, soonest(many)));
    },

    work<Q extends QueueName>(queue: Q, handler: JobHandler<JobData<Q>>, workOptions: WorkOptions = {}) {
      assertQueue(queue);
      if (workers.has(queue)) throw new Error(`a handler for ${queue} is already registered in this process`);
      (handlers as Record<QueueName, unknown>)[queue] = handler;
      const concurrency = Math.max(1, Math.floor(workOptions.concurrency ?? 1));
      const run = dispatcher(queue, handlers);
      const worker = new QueueWorker<unknown>(queue, run, concurrency, pollIntervalMs, deps, logger);
      workers.set(queue, worker);
      if (state === "started") worker.start();
    },

    async cancel(queue, id) {
      assertQueue(queue);
      const result = (await boss.cancel(queue, id)) as unknown as { affected: number };
      return result.affected > 0;
    },

    async retry(queue, id, options = {}) {
      assertQueue(queue);
      const { tx } = options;
      const result = (await boss.retry(
        queue,
        id,
        tx ? { db: { executeSql: (text: string, values: unknown[]) => tx.query(text, values) } } : {},
      )) as unknown as { affected: number };
      if (result.affected > 0) afterCommit(tx ?? store, () => scheduleWake(queue, 0));
      return result.affected > 0;
    },

    async settleFailed(queue, orderId, { note, tx }) {
      assertQueue(queue);
      return table.settleFailed(tx ?? store, queue, orderId, note);
    },

    async getJob(queue, id) {
      assertQueue(queue);
      const j = await boss.getJobById<unknown>(queue, id, { includeArchive: true });
      if (!j) return null;
      return {
        id: j.id,
        queue,
        state: j.state,
        data: j.data,
        runs: j.startedOn ? j.retryCount + 1 : 0,
        retryLimit: j.retryLimit,
        startAfter: j.startAfter,
        createdAt: j.createdOn,
        completedAt: j.completedOn,
        output: j.output,
      };
    },

    async listFailed({ queue, limit = 50 } = {}) {
      if (queue) assertQueue(queue);
      return table.listFailed(queue ?? null, limit);
    },

    stats: table.stats,

    async pause() {
      await Promise.all([...workers.values()].map((w) => w.stopFetching()));
    },

    stop({ graceMs = 20_000 } = {}) {
      if (stopped) return stopped;
      if (state === "new") {
        state = "stopped";
        stopped = Promise.resolve();
        return stopped;
      }
      state = "stopping";
      stopped = (async () => {
        wake.clear();
        const all = [...workers.values()];
        await Promise.all(all.map((w) => w.stopFetching()));
        let expire: NodeJS.Timeout | undefined;
        const deadline = new Promise<void>((resolve) => {
          expire = setTimeout(resolve, graceMs);
        });
        await Promise.all(all.map((w) => w.drain(deadline)));
        clearTimeout(expire);
        const left = all.reduce((n, w) => n + w.activeCount, 0);
        if (left > 0) {
          logger.warn({ jobs: left, graceMs }, "shutdown deadline reached; interrupting running jobs");
          await Promise.all(all.map((w) => w.interrupt(2_000)));
        }
        await boss.stop({ graceful: false, close: false, wait: true });
        await owners?.stop();
        state = "stopped";
        logger.info("jobs stopped");
      })();
      return stopped;
    },
  };
}
