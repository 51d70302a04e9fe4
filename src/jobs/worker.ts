/**
 * One queue's fetch loop: fetches up to `concurrency` jobs, runs the handler for each, and records the outcome.
 * It polls every `pollIntervalMs`, and is woken at once when this process enqueues a job (or a slot frees up),
 * so a job sent by this process starts within milliseconds while another replica's job starts within a poll.
 */
import type { Logger } from "pino";
import { JobInterruptedError, JobTimedOutError, PermanentJobError, RetryLaterError } from "./errors.ts";
import type { QueueName } from "./queues.ts";

export interface JobContext<T> {
  id: string;
  queue: QueueName;
  data: T;
  /** 1 on the first run; runs re-scheduled by `RetryLaterError` count too. */
  attempt: number;
  maxAttempts: number;
  /** True when a failure now leaves the job failed for good (e.g. mark the order failed). */
  isFinalAttempt: boolean;
  createdAt: Date;
  /** Aborted when the run exceeds the queue's expiry, or at the end of a graceful shutdown. Honour it. */
  signal: AbortSignal;
  logger: Logger;
}

export type JobHandler<T> = (job: JobContext<T>) => Promise<void>;

/** What the worker needs from pg-boss (kept narrow so the loop reads on its own). */
export interface FetchedJob {
  id: string;
  data: unknown;
  retryCount: number;
  retryLimit: number;
  expireInSeconds: number;
  createdOn: Date;
  output: unknown;
}

export interface WorkerDeps {
  fetch(queue: QueueName, batchSize: number): Promise<FetchedJob[]>;
  complete(queue: QueueName, id: string): Promise<void>;
  fail(queue: QueueName, id: string, error: Record<string, unknown>): Promise<void>;
  failPermanently(queue: QueueName, id: string, error: Record<string, unknown>): Promise<void>;
  defer(queue: QueueName, id: string, delayMs: number, deferrals: number, reason: string): Promise<void>;
  requeue(queue: QueueName, ids: string[], reason: string): Promise<void>;
  scheduleWake(queue: QueueName, delayMs: number): void;
}

/** A handler asking to be re-scheduled more often than this in a row counts as failing. */
export const MAX_CONSECUTIVE_DEFERRALS = 50;

interface Running {
  controller: AbortController;
  interrupted: boolean;
  done: Promise<void>;
}

export class QueueWorker<T> {
  private readonly running = new Map<string, Running>();
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | null = null;
  private woken = false;

  constructor(
    readonly queue: QueueName,
    private readonly handler: JobHandler<T>,
    private readonly concurrency: number,
    private readonly pollIntervalMs: number,
    private readonly deps: WorkerDeps,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.loopDone = this.loop();
  }

  /** Fetch now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops fetching; resolves once the loop is out of its current fetch. Running jobs go on. */
  async stopFetching(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loopDone;
  }

  /** Resolves when every running job has finished (or `deadline` resolves first). */
  async drain(deadline: Promise<void>): Promise<void> {
    await Promise.race([Promise.allSettled([...this.running.values()].map((r) => r.done)), deadline]);
  }

  /** Aborts what still runs; those jobs are queued again without using up an attempt. */
  async interrupt(settleMs: number): Promise<void> {
    const left = [...this.running.values()];
    for (const run of left) {
      run.interrupted = true;
      run.controller.abort(new JobInterruptedError());
    }
    await Promise.race([Promise.allSettled(left.map((r) => r.done)), sleep(settleMs)]);
  }

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  get activeCount(): number {
    return this.running.size;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const free = this.concurrency - this.running.size;
      let fetched = 0;
      if (free > 0) {
        const jobs = await this.deps.fetch(this.queue, free).catch((error: unknown) => {
          this.logger.warn(
            { err: error, queue: this.queue },
            "fetching jobs failed; retrying at the next poll",
          );
          return [] as FetchedJob[];
        });
        if (this.stopping && jobs.length > 0) {
          // Fetched while shutting down: hand them back untouched rather than start work we cannot finish.
          await this.deps
            .requeue(
              this.queue,
              jobs.map((j) => j.id),
              "fetched during shutdown",
            )
            .catch(() => {});
          break;
        }
        fetched = jobs.length;
        for (const job of jobs) this.launch(job);
      }
      if (this.stopping) break;
      // More may be waiting when we got all we asked for; otherwise sleep until a poll, a send or a free slot.
      if (fetched === 0 || this.running.size >= this.concurrency) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(finish, this.pollIntervalMs);
      this.wakeUp = () => {
        this.woken = false;
        finish();
      };
    });
  }

  private launch(job: FetchedJob): void {
    if (this.running.has(job.id)) {
      // pg-boss took the job back (a heartbeat or expiry missed while this process was starved) and handed it
      // out again, here: the run in progress records its outcome; a second one would repeat its side effects.
      this.logger.warn(
        { queue: this.queue, jobId: job.id },
        "job handed out again while it runs here: not run twice",
      );
      return;
    }
    const run: Running = { controller: new AbortController(), interrupted: false, done: Promise.resolve() };
    run.done = this.execute(job, run).finally(() => {
      this.running.delete(job.id);
      this.wake();
    });
    this.running.set(job.id, run);
  }

  private async execute(job: FetchedJob, run: Running): Promise<void> {
    const attempt = job.retryCount + 1;
    const logger = this.logger.child({ queue: this.queue, jobId: job.id, attempt });
    const timeoutMs = job.expireInSeconds * 1000;
    const timer = setTimeout(() => run.controller.abort(new JobTimedOutError(timeoutMs)), timeoutMs);
    const context: JobContext<T> = {
      id: job.id,
      queue: this.queue,
      data: job.data as T,
      attempt,
      maxAttempts: job.retryLimit + 1,
      isFinalAttempt: job.retryCount >= job.retryLimit,
      createdAt: job.createdOn,
      signal: run.controller.signal,
      logger,
    };
    let failure: unknown = null;
    let succeeded = false;
    try {
      await untilAborted(
        Promise.resolve().then(() => this.handler(context)),
        run.controller.signal,
      );
      succeeded = true;
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(timer);
    }

    const record = async () => {
      if (run.interrupted) {
        await this.deps.requeue(this.queue, [job.id], "interrupted by shutdown");
        logger.info("job interrupted by shutdown; queued again");
      } else if (succeeded) {
        await this.deps.complete(this.queue, job.id);
      } else if (failure instanceof RetryLaterError && deferralsOf(job) < MAX_CONSECUTIVE_DEFERRALS) {
        const delayMs = Math.max(0, failure.delayMs);
        await this.deps.defer(this.queue, job.id, delayMs, deferralsOf(job) + 1, failure.message);
        this.deps.scheduleWake(this.queue, delayMs);
        logger.info({ delayMs }, "job re-scheduled");
      } else if (failure instanceof PermanentJobError) {
        await this.deps.failPermanently(this.queue, job.id, describeError(failure));
        logger.error({ err: failure }, "job failed permanently");
      } else {
        await this.deps.fail(this.queue, job.id, describeError(failure));
        if (context.isFinalAttempt) logger.error({ err: failure }, "job failed; no attempts left");
        else logger.warn({ err: failure }, "job failed; it will be retried");
      }
    };
    // The database may be restarting: a job whose outcome is not recorded stays active until it is taken back
    // (the owner sweep on PostgreSQL, else its expiry: five minutes for a placement), so try again for a while.
    // A recording that landed before its answer was lost is at worst applied twice: completing or deferring acts
    // only on an active job, and failing again only schedules the retry anew.
    for (let tries = 0; ; tries++) {
      try {
        await record();
        return;
      } catch (error) {
        const delayMs = outcomeRetryDelayMs(tries);
        if (delayMs === null) {
          // Handlers are idempotent, so running it again once taken back is safe.
          logger.error(
            { err: error },
            "could not record the job's outcome; it runs again once taken back (the owner sweep, or its expiry)",
          );
          return;
        }
        logger.warn({ err: error, delayMs }, "could not record the job's outcome; trying again");
        await sleep(delayMs);
      }
    }
  }
}

/** Waits between attempts to record a job's outcome: about 16 s in all, then `null` (leave it to be taken back). */
export function outcomeRetryDelayMs(tries: number): number | null {
  const delays = [100, 250, 500, 1000, 2000, 4000, 8000];
  return delays[tries] ?? null;
}

function deferralsOf(job: FetchedJob): number {
  const output = job.output as { deferrals?: unknown } | null;
  return typeof output?.deferrals === "number" ? output.deferrals : 0;
}

/** The error as stored on the failed job: name, code, message, and an HTTP status when there is one. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const e = error as Error & { code?: unknown; httpStatus?: unknown; status?: unknown };
    return {
      name: e.name,
      message: e.message,
      ...(typeof e.code === "string" && { code: e.code }),
      ...(typeof e.httpStatus === "number" && { httpStatus: e.httpStatus }),
      ...(typeof e.status === "number" && { httpStatus: e.status }),
    };
  }
  return { message: String(error) };
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<V>(promise: Promise<V>, signal: AbortSignal): Promise<V> {
  promise.catch(() => {}); // a late rejection after the abort is not unhandled
  return new Promise<V>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
