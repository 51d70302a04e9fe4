/**
 * Durable jobs on the store's own database (pg-boss 12), the same code on PGlite and PostgreSQL.
 *
 * - pg-boss runs over the store's pool (`db: { executeSql }`), so the embedded store's single connection is
 *   shared and a job can be enqueued inside the transaction that writes its row: `send(q, data, { db })` hands
 *   pg-boss the transaction's connection; roll back → no job.
 * - We run our own fetch loop (worker.ts) over pg-boss's `fetch` instead of `boss.work()` to get: attempt
 *   numbers in the handler, `RetryLaterError`/`PermanentJobError`, an abort signal, an immediate wake-up when this
 *   process sends, and a shutdown that puts interrupted jobs back without using up an attempt.
 * - Crash recovery: on PostgreSQL each process claims the jobs it fetches in our own table and holds an advisory
 *   lock on its key; a job whose process died (no lock) is queued again within seconds, and a job pg-boss hands
 *   out again while a live process still runs it is not run twice (owners.ts). pg-boss's heartbeat
 *   (`heartbeatSeconds`, touched by `heartbeat.ts`) and expiry remain the backstop. On the embedded store the
 *   lock file guarantees a single process, so any job still `active` at start-up was interrupted by a crash and
 *   is queued again immediately, and the worker never runs a job it is already running.
 * - A pg-boss 10 schema found at start-up is set aside and its jobs carried over (carry-over.ts).
 * - A few statements touch pg-boss's job table directly, for what pg-boss 12 has no call for (job-table.ts,
 *   interrupted.ts); they use its documented columns, and pg-boss is pinned to a minor (`~12.38`).
 */
import type pg from "pg";
import { type JobInsert, PgBoss } from "pg-boss";
import { type Logger, pino } from "pino";
import { withAdvisoryLock } from "../../store/advisory-lock.ts";
import { afterCommit, type Queryable, type Store } from "../../store/db.ts";
import { STARTUP_LOCK_KEY_SQL } from "../../store/migrate.ts";
import { dispatcher, type Handlers } from "../dispatch.ts";
import { JobsNotStartedError, UnknownQueueError } from "../errors.ts";
import type { JobInfo, JobState, Jobs, ManyJob, WorkOptions } from "../jobs.ts";
import type { JobData } from "../payloads.ts";
import { DEFAULT_POLICIES, isQueueName, QUEUE_NAMES, type QueueName, type QueuePolicy } from "../queues.ts";
import { type FetchedJob, type JobHandler, QueueWorker, type WorkerDeps } from "../worker.ts";
import { createHeartbeat } from "./heartbeat.ts";
import { install } from "./install.ts";
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
  /** How often expired runs and lost heartbeats are retried (default 60 s; pg-boss minimum 1 s). */
  maintenanceIntervalSeconds?: number;
  /** How long completed and failed jobs stay, failed ones listed by `listFailed()` (default 14 days). */
  failedRetentionDays?: number;
  /**
   * pg-boss's heartbeat: a running job not touched for this long is taken back (pg-boss minimum 10 s). Default
   * 60 s on PostgreSQL, the backstop should a claim ever be missing (owners.ts); none on the
   * embedded store (one process: what a crash left is queued again at start-up).
   */
  heartbeatSeconds?: number | null;
  /** Requeue jobs left `active` by a crashed process at start (default: on the embedded store only). */
  recoverInterruptedOnStart?: boolean;
  /**
   * PostgreSQL: take back the jobs of a process that died (owners.ts). Default on; `false` leaves them to
   * pg-boss's heartbeat and expiry.
   */
  owners?: false | { sweepIntervalMs?: number; graceMs?: number };
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,49}$/;

function bossJobs(many: readonly ManyJob[]): JobInsert[] {
  return many.map((j) => ({
    data: j.data,
    ...(j.id && { id: j.id }),
    ...(j.startAfter && { startAfter: j.startAfter }),
  }));
}

/** Milliseconds until the first of `many` is due (≤ 0: now). */
function soonest(many: readonly ManyJob[]): number {
  const now = Date.now();
  return Math.min(...many.map((j) => (j.startAfter ? j.startAfter.getTime() - now : 0)));
}

/** pg-boss 12 answers `{ jobs, requested, affected }` but declares `CommandResponse` empty. */
function affected(response: object): number {
  return (response as { affected?: number }).affected ?? 0;
}

/**
 * pg-boss 12 reads the rows of every statement of a multi-statement text (its advisory lock's row, then its
 * claim), while the store answers the last one's; such texts have no parameters, so they go to the pool as is.
 */
async function executeSql(store: Store, text: string, values?: unknown[]): Promise<{ rows: unknown[] }> {
  if (values && values.length > 0) return store.query(text, values);
  const result = (await store.pool.query(text)) as pg.QueryResult | pg.QueryResult[];
  return { rows: Array.isArray(result) ? result.flatMap((r) => r.rows ?? []) : result.rows };
}

/**
 * pg-boss 12 writes the queue's name into its fetch's text and sends it without parameters, so each queue's poll
 * was a text of its own, parsed and planned anew every time. The name goes back to being a parameter, as it was
 * in pg-boss 10: every queue's fetch is then one prepared statement (statements.ts), parsed and planned once.
 */
export function fetchDb(store: Queryable, queue: string) {
  const literal = `'${queue}'`;
  return {
    executeSql(text: string, values?: unknown[]) {
      if ((values && values.length > 0) || !text.includes(literal)) return store.query(text, values);
      return store.query(text.replaceAll(literal, "$1"), [queue]);
    },
  };
}

/** pg-boss's options for a statement inside our transaction. */
function inTx(tx: Queryable | undefined) {
  return tx ? { db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) } } : {};
}

export function createJobs(options: JobsOptions): Jobs {
  const { store } = options;
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "jobs" });
  const schema = options.schema ?? (store.schema ? `${store.schema}_jobs` : "pgboss");
  if (!SCHEMA_NAME.test(schema)) throw new TypeError(`jobs schema must match ${SCHEMA_NAME} (got ${schema})`);
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const recover = options.recoverInterruptedOnStart ?? store.kind === "pglite";
  const heartbeatSeconds =
    options.heartbeatSeconds === undefined
      ? store.kind === "postgres"
        ? 60
        : null
      : options.heartbeatSeconds;
  const policies = Object.fromEntries(
    QUEUE_NAMES.map((q) => [q, { ...DEFAULT_POLICIES[q], ...options.policies?.[q] }]),
  ) as Record<QueueName, QueuePolicy>;
  const checkSeconds = options.maintenanceIntervalSeconds ?? 60;

  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => executeSql(store, text, values) },
    schema,
    schedule: false,
    supervise: true,
    migrate: true,
    superviseIntervalSeconds: checkSeconds,
    monitorIntervalSeconds: checkSeconds,
    // Our owner keys (owners.ts) say which process runs a job; pg-boss's registry of instances would be a
    // second one nobody reads. Index rebuilds and vacuum warnings are the database operator's.
    registerInstance: false,
    reindex: false,
    monitorVacuum: false,
    openTelemetry: { enabled: false },
  });
  boss.on("error", (error) => logger.error({ err: error }, "pg-boss error"));
  boss.on("warning", (warning) => logger.warn({ warning }, "pg-boss warning"));

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

  async function bossFetch(queue: string, batchSize: number, tx?: Queryable): Promise<FetchedJob[]> {
    const fetched = await boss.fetch<unknown>(queue, {
      batchSize,
      includeMetadata: true,
      db: fetchDb(tx ?? store, queue),
    });
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
  }

  const owners =
    store.kind === "postgres" && options.owners !== false
      ? createJobOwners({
          store,
          jobTable: job,
          schema,
          logger,
          fetch: bossFetch,
          ...options.owners,
          isRunning: (queue, id) => (isQueueName(queue) && workers.get(queue)?.isRunning(id)) === true,
          onRecovered: (queues) => {
            for (const queue of queues) if (isQueueName(queue)) scheduleWake(queue, 0);
          },
        })
      : null;
  const heartbeat = createHeartbeat({
    heartbeatSeconds,
    running: () => [...workers.values()].map((w) => ({ queue: w.queue, ids: w.runningIds() })),
    touch: async (queue, ids) => {
      await boss.touch(queue, ids);
    },
    logger,
  });
  /** The run ended here: our claim goes (a failure to drop it is swept: owners.ts). */
  const release = (id: string) => owners?.release([id]).catch(() => {});

  const deps: WorkerDeps = {
    fetch: (queue, batchSize) => (owners ? owners.fetch(queue, batchSize) : bossFetch(queue, batchSize)),
    async complete(queue, id) {
      // `includeQueued`: pg-boss may have taken the job back (a heartbeat or expiry missed by a starved
      // process) while this run went on; the work is done, so it must not run again.
      await boss.complete(queue, id, null, { includeQueued: true });
      await release(id);
    },
    async fail(queue, id, error) {
      await boss.fail(queue, id, error);
      await release(id);
    },
    async failPermanently(queue, id, error) {
      await table.exhaustRetries(queue, id);
      await boss.fail(queue, id, error);
      await release(id);
    },
    async defer(queue, id, delayMs, deferrals, reason) {
      await table.defer(queue, id, delayMs, deferrals, reason);
      await release(id);
    },
    async requeue(queue, ids, reason) {
      await table.requeue(queue, ids, reason);
      await owners?.release(ids).catch(() => {});
    },
    scheduleWake,
  };

  function assertQueue(queue: string): asserts queue is QueueName {
    if (!isQueueName(queue)) throw new UnknownQueueError(queue);
  }

  async function installAll(): Promise<void> {
    await install({
      store,
      boss,
      schema,
      policies,
      deleteAfterSeconds: (options.failedRetentionDays ?? 14) * 86_400,
      heartbeatSeconds,
      logger,
    });
  }

  return {
    schema,

    async start() {
      if (state !== "new") return;
      state = "starting";
      // Replicas started together: pg-boss's own install, and the carry-over of a pg-boss 10 schema, run under
      // the migrations' lock, one replica at a time (pg-boss's lock is taken inside the transaction that creates
      // the schema, so a waiter fails on a duplicate schema or deadlocks creating queues).
      if (store.kind === "postgres") await withAdvisoryLock(store, STARTUP_LOCK_KEY_SQL, installAll);
      else await installAll();
      // Jobs `active` at start on the embedded store belong to a process that died: queue them again now.
      if (recover)
        await requeueInterrupted(store, { jobTable: job, schema }, { sql: "true", params: [] }, logger);
      await owners?.start();
      state = "started";
      heartbeat.start();
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
        ...inTx(tx),
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
      await boss.insert(queue, bossJobs(many), inTx(tx));
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
      return affected(await boss.cancel(queue, id)) > 0;
    },

    async retry(queue, id, options = {}) {
      assertQueue(queue);
      const { tx } = options;
      const retried = affected(await boss.retry(queue, id, inTx(tx))) > 0;
      if (retried) afterCommit(tx ?? store, () => scheduleWake(queue, 0));
      return retried;
    },

    async settleFailed(queue, orderId, { note, tx }) {
      assertQueue(queue);
      return table.settleFailed(tx ?? store, queue, orderId, note);
    },

    async getJob(queue, id) {
      assertQueue(queue);
      const [j] = await boss.findJobs<unknown>(queue, { id });
      if (!j) return null;
      const info: JobInfo = {
        id: j.id,
        queue,
        state: j.state as JobState,
        data: j.data,
        runs: j.startedOn ? j.retryCount + 1 : 0,
        retryLimit: j.retryLimit,
        startAfter: j.startAfter,
        createdAt: j.createdOn,
        completedAt: j.completedOn,
        output: j.output,
      };
      return info;
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
        await heartbeat.stop();
        await boss.stop({ graceful: false, close: false });
        await owners?.stop();
        state = "stopped";
        logger.info("jobs stopped");
      })();
      return stopped;
    },
  };
}
