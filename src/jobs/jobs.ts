/**
 * The durable queue as the rest of the app sees it: send a job (inside a transaction, so it exists only if
 * the transaction commits), work a queue, look at and act on jobs. One queue per job kind (queues.ts), each
 * with a typed payload; handlers run in worker.ts's loop. The implementation is pg-boss on the store's own
 * database (pgboss/); nothing here depends on it.
 */
import type { Queryable } from "../store/db.ts";
import type { JobData } from "./payloads.ts";
import type { QueueName } from "./queues.ts";
import type { JobHandler } from "./worker.ts";

export interface SendOptions {
  /** Deterministic id (see `jobId`): a job with this id already in the queue makes the send a no-op. */
  id?: string;
  /** Not before this time. */
  startAfter?: Date;
  /** Enqueue inside this transaction: the job exists only if the transaction commits. */
  tx?: Queryable;
}

export interface ManyJob<T = object> {
  data: T;
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
  send<Q extends QueueName>(queue: Q, data: JobData<Q>, options?: SendOptions): Promise<string | null>;
  /**
   * Enqueues several jobs of one queue in one statement (each skipped when its id is already in the queue),
   * inside `options.tx` when given.
   */
  sendMany<Q extends QueueName>(
    queue: Q,
    jobs: readonly ManyJob<JobData<Q>>[],
    options?: { tx?: Queryable },
  ): Promise<void>;
  /**
   * Registers the queue's handler (one per queue and process); it starts with `start()`, or now if started.
   * It gets the payload parsed with the queue's schema (payloads.ts).
   */
  work<Q extends QueueName>(queue: Q, handler: JobHandler<JobData<Q>>, options?: WorkOptions): void;
  /** Cancels a job that has not finished; false when there was none. */
  cancel(queue: QueueName, id: string): Promise<boolean>;
  /**
   * Puts a failed job back in the queue for one more attempt; false when it is not failed (any more). With `tx`,
   * only if that transaction commits.
   */
  retry(queue: QueueName, id: string, options?: { tx?: Queryable }): Promise<boolean>;
  /**
   * Marks the order's failed jobs of `queue` completed, with `note` as their output: what they were for was done
   * another way (an admin's Retry now placed the order). Inside `options.tx` when given. Returns how many.
   */
  settleFailed(queue: QueueName, orderId: string, options: { note: string; tx?: Queryable }): Promise<number>;
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
