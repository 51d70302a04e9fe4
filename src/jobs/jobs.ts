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
 * - A few statements touch pg-boss's job table directly (defer, fail without retry, requeue, stats); they use
 *   pg-boss 10's documented table layout, which is pinned (`pg-boss ~10.4`).
 */
import PgBoss from "pg-boss";
import { type Logger, pino } from "pino";
import { afterCommit, type Queryable, type SqlQuery, type Store } from "../store/db.ts";
import { JobsNotStartedError, UnknownQueueError } from "./errors.ts";
import { requeueInterrupted } from "./interrupted.ts";
import { createJobOwners } from "./owners.ts";
import { DEFAULT_POLICIES, isQueueName, QUEUE_NAMES, type QueueName, type QueuePolicy } from "./queues.ts";
import { type FetchedJob, type JobHandler, QueueWorker, type WorkerDeps } from "./worker.ts";

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

export interface SendOptions {
  /** Deterministic id (see `jobId`): a job with this id already in the queue makes the send a no-op. */
  id?: string;
  /** Not before this time. */
  startAfter?: Date;
  /** Enqueue inside this transaction: the job exists only if the transaction commits. */
  tx?: Queryable;
}

export interface ManyJob {
  data: object;
  id?: string;
  startAfter?: Date;
}

export interface WorkOptions {
  /** Jobs of this queue run at the same time in this process (default 1). */
  concurrency?: number;
}

export type JobState = "created" | "retry" | "active" | "completed" | "cancelled" | "failed";

export interface JobInfo {
  id: string;
  queue: QueueName;
  state: JobState;
  data: unknown;
  /** Runs started so far. */
  runs: number;
  retryLimit: number;
  startAfter: Date;
  createdAt: Date;
  completedAt: Date | null;
  /** The last error (failed, retrying) or the deferral note. */
  output: unknown;
}

export interface FailedJob {
  id: string;
  queue: QueueName;
  data: unknown;
  error: unknown;
  runs: number;
  createdAt: Date;
  failedAt: Date | null;
}

export interface QueueStats {
  /** Due now, waiting for a worker. */
  ready: number;
  /** Waiting for their `startAfter` (delayed sends, retries in backoff). */
  scheduled: number;
  active: number;
  failed: number;
  /** How long the oldest ready job has been due (0 when none): the queue's lag. */
  oldestReadyAgeMs: number;
}

export interface Jobs {
  /** pg-boss's schema. */
  readonly schema: string;
  /** Installs/migrates pg-boss's schema, creates the queues, recovers interrupted jobs, starts workers. */
  start(): Promise<void>;
  /** Enqueues a job; resolves to its id, or `null` when a job with `options.id` is already in the queue. */
  send(queue: QueueName, data: object, options?: SendOptions): Promise<string | null>;
  /**
   * Enqueues several jobs of one queue in one statement (each skipped when its id is already in the queue),
   * inside `options.tx` when given.
   */
  sendMany(queue: QueueName, jobs: readonly ManyJob[], options?: { tx?: Queryable }): Promise<void>;
  /**
   * `sendMany` as part of a statement of the caller's, saving its round trip: `run` gets pg-boss's own INSERT
   * of the jobs, to embed as a `WITH` query (its parameters are `$1`…`$n`, n = `insert.values.length`; the
   * caller's follow), and must execute it in one statement. The jobs exist when that statement commits; this
   * process's workers are woken when `run` resolves.
   */
  sendManyWithin<T>(
    queue: QueueName,
    jobs: readonly ManyJob[],
    run: (insert: SqlQuery) => Promise<T>,
  ): Promise<T>;
  /** Registers the queue's handler (one per queue and process); it starts with `start()`, or now if started. */
  work<T>(queue: QueueName, handler: JobHandler<T>, options?: WorkOptions): void;
  /** Cancels a job that has not finished; false when there was none. */
  cancel(queue: QueueName, id: string): Promise<boolean>;
  /** Puts a failed job back in the queue for one more attempt. */
  retry(queue: QueueName, id: string): Promise<boolean>;
  getJob(queue: QueueName, id: string): Promise<JobInfo | null>;
  listFailed(options?: { queue?: QueueName; limit?: number }): Promise<FailedJob[]>;
  stats(): Promise<Record<QueueName, QueueStats>>;
  /** Stops fetching new jobs (the first step of a shutdown); running handlers go on. `stop` still follows. */
  pause(): Promise<void>;
  /**
   * Stops fetching, lets running handlers finish for up to `graceMs` (default 20 s), then aborts the rest and
   * queues them again. Does not close the store (close it after this resolves).
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,49}$/;

/** The resolution of PGlite's clock (`now()`), in milliseconds. */
const PGLITE_CLOCK_TICK_MS = 1;

function bossJobs(queue: QueueName, many: readonly ManyJob[]): PgBoss.JobInsert[] {
  return many.map((j) => ({
    name: queue,
    data: j.data,
    ...(j.id && { id: j.id }),
    ...(j.startAfter && { startAfter: j.startAfter.toISOString() }),
  }));
}

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
  const timers = new Set<NodeJS.Timeout>();
  let state: "new" | "starting" | "started" | "stopping" | "stopped" = "new";
  let stopped: Promise<void> | null = null;

  const job = `${schema}.job`;
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

  const scheduleWake = (queue: QueueName, delayMs: number) => {
    const worker = workers.get(queue);
    if (!worker || state !== "started") return;
    // PGlite's now() ticks in whole milliseconds and pg-boss fetches only jobs with start_after < now(): a fetch
    // in the same millisecond as the send finds nothing and leaves the job to the next poll. Wake a tick later.
    if (delayMs <= 0 && store.kind !== "pglite") return worker.wake();
    // Past the 32-bit timer limit the regular poll picks it up.
    if (delayMs > 2 ** 31 - 1) return;
    // A few ms late on purpose: woken exactly on time, the fetch can run before the database's now() passes
    // the job's start_after, find nothing, and leave the job to the next poll.
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        worker.wake();
      },
      delayMs <= 0 ? PGLITE_CLOCK_TICK_MS + 1 : delayMs + 5,
    );
    timer.unref();
    timers.add(timer);
  };

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
      await store.query(`UPDATE ${job} SET retry_limit = retry_count WHERE name = $1 AND id = $2`, [
        queue,
        id,
      ]);
      await boss.fail(queue, id, error);
    },
    async defer(queue, id, delayMs, deferrals, reason) {
      // The next fetch counts a run (retry_count + 1); raising the limit with it keeps the attempts left.
      await store.query(
        `UPDATE ${job} SET state = 'retry', retry_limit = retry_limit + 1,
           start_after = now() + $3::double precision * interval '1 millisecond', output = $4::jsonb
         WHERE name = $1 AND id = $2 AND state = 'active'`,
        [queue, id, delayMs, JSON.stringify({ deferrals, reason })],
      );
    },
    async requeue(queue, ids, reason) {
      await store.query(
        `UPDATE ${job} SET state = 'retry', retry_limit = retry_limit + 1, start_after = now(),
           output = $3::jsonb
         WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`,
        [queue, ids, JSON.stringify({ message: reason })],
      );
    },
    scheduleWake,
  };

  /** Jobs `active` at start on the embedded store belong to a process that died: queue them again now. */
  async function recoverInterrupted(): Promise<void> {
    await requeueInterrupted(store, { jobTable: job, schema }, { sql: "true", params: [] }, logger);
  }

  function assertQueue(queue: string): asserts queue is QueueName {
    if (!isQueueName(queue)) throw new UnknownQueueError(queue);
  }

  return {
    schema,

    async start() {
      if (state !== "new") return;
      state = "starting";
      await boss.start();
      // One read on a usual start: a queue is created only when missing and updated only when its policy
      // changed. (Creating and updating each queue every time took ≈ 0.25 s of a 1–2 s embedded start: the
      // first call of pg-boss's create_queue() compiles its PL/pgSQL.)
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
        // createQueue keeps an existing queue as it was (another replica may create it at the same moment).
        if (!current) await boss.createQueue(queue, queueOptions);
        else if (!samePolicy(current, queueOptions)) await boss.updateQueue(queue, queueOptions);
      }
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

    async sendManyWithin(queue, many, run) {
      assertQueue(queue);
      if (state !== "started") throw new JobsNotStartedError();
      // pg-boss builds its INSERT (queue policies, defaults) in insert(); we take the text and values it would
      // run instead of running them, so the job rows follow pg-boss's rules without us copying its SQL.
      const built: { insert?: SqlQuery } = {};
      await boss.insert(bossJobs(queue, many), {
        db: {
          executeSql: async (text: string, values: unknown[]) => {
            built.insert = { text, values };
            return { rows: [] };
          },
        },
      });
      if (!built.insert) throw new Error("pg-boss built no INSERT for the jobs");
      const result = await run(built.insert);
      scheduleWake(queue, soonest(many));
      return result;
    },

    work<T>(queue: QueueName, handler: JobHandler<T>, workOptions: WorkOptions = {}) {
      assertQueue(queue);
      if (workers.has(queue)) throw new Error(`a handler for ${queue} is already registered in this process`);
      const concurrency = Math.max(1, Math.floor(workOptions.concurrency ?? 1));
      const worker = new QueueWorker<T>(queue, handler, concurrency, pollIntervalMs, deps, logger);
      workers.set(queue, worker as QueueWorker<unknown>);
      if (state === "started") worker.start();
    },

    async cancel(queue, id) {
      assertQueue(queue);
      const result = (await boss.cancel(queue, id)) as unknown as { affected: number };
      return result.affected > 0;
    },

    async retry(queue, id) {
      assertQueue(queue);
      const result = (await boss.retry(queue, id)) as unknown as { affected: number };
      if (result.affected > 0) scheduleWake(queue, 0);
      return result.affected > 0;
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
      const { rows } = await store.query(
        `SELECT id, name, data, output, retry_count, created_on, completed_on FROM ${job}
         WHERE state = 'failed' AND ($1::text IS NULL OR name = $1)
         ORDER BY completed_on DESC NULLS LAST LIMIT $2`,
        [queue ?? null, limit],
      );
      return rows.map((r) => ({
        id: r.id,
        queue: r.name,
        data: r.data,
        error: r.output,
        runs: r.retry_count + 1,
        createdAt: r.created_on,
        failedAt: r.completed_on,
      }));
    },

    async stats() {
      const { rows } = await store.query(
        `SELECT name,
           count(*) FILTER (WHERE state < 'active' AND start_after <= now())::int AS ready,
           count(*) FILTER (WHERE state < 'active' AND start_after > now())::int AS scheduled,
           count(*) FILTER (WHERE state = 'active')::int AS active,
           count(*) FILTER (WHERE state = 'failed')::int AS failed,
           COALESCE(EXTRACT(EPOCH FROM now() - min(start_after)
             FILTER (WHERE state < 'active' AND start_after <= now())) * 1000, 0)::float8 AS oldest_ready_ms
         FROM ${job} GROUP BY name`,
      );
      const empty = (): QueueStats => ({ ready: 0, scheduled: 0, active: 0, failed: 0, oldestReadyAgeMs: 0 });
      const result = Object.fromEntries(QUEUE_NAMES.map((q) => [q, empty()])) as Record<
        QueueName,
        QueueStats
      >;
      for (const r of rows) {
        if (!isQueueName(r.name)) continue;
        result[r.name] = {
          ready: r.ready,
          scheduled: r.scheduled,
          active: r.active,
          failed: r.failed,
          oldestReadyAgeMs: Math.round(r.oldest_ready_ms),
        };
      }
      return result;
    },

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
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
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
