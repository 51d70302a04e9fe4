/**
 * Errors of the job system. A handler throws `RetryLaterError` or `PermanentJobError` to steer what happens
 * to its job; any other error is a failure that the queue's retry policy handles.
 */

export type JobErrorCode =
  | "RETRY_LATER"
  | "PERMANENT_FAILURE"
  | "JOB_TIMED_OUT"
  | "JOB_INTERRUPTED"
  | "JOBS_NOT_STARTED"
  | "UNKNOWN_QUEUE";

export abstract class JobError extends Error {
  abstract readonly code: JobErrorCode;
  override readonly cause: unknown;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = new.target.name;
    this.cause = options.cause;
  }
}

/**
 * "Not now, try again in `delayMs`" (a Slack 429 with Retry-After, a supplier 429). The job is re-scheduled
 * without using up one of its attempts (up to `MAX_CONSECUTIVE_DEFERRALS` in a row, then it counts as a failure).
 */
export class RetryLaterError extends JobError {
  readonly code = "RETRY_LATER";
  constructor(
    readonly delayMs: number,
    message = `retry in ${Math.round(delayMs)} ms`,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

/** The job can never succeed (bad data, a rejection already recorded): fail it now, without retrying. */
export class PermanentJobError extends JobError {
  readonly code = "PERMANENT_FAILURE";
}

/** The handler ran past its queue's `expireInSeconds`; its signal was aborted with this reason. */
export class JobTimedOutError extends JobError {
  readonly code = "JOB_TIMED_OUT";
  constructor(readonly timeoutMs: number) {
    super(`the job ran longer than ${timeoutMs} ms and was aborted; it will be retried`);
  }
}

/** Shutdown reached its deadline while the handler ran; its signal was aborted with this reason. */
export class JobInterruptedError extends JobError {
  readonly code = "JOB_INTERRUPTED";
  constructor() {
    super("shutting down: the job was interrupted and is queued again");
  }
}

export class JobsNotStartedError extends JobError {
  readonly code = "JOBS_NOT_STARTED";
  constructor() {
    super("jobs.start() must finish before jobs are sent (the queues are created there).");
  }
}

export class UnknownQueueError extends JobError {
  readonly code = "UNKNOWN_QUEUE";
  constructor(readonly queue: string) {
    super(`unknown queue ${JSON.stringify(queue)}; use one of QUEUES`);
  }
}
