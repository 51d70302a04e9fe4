/** Errors of the workflow step, each with a readonly `code` to switch on and a message saying what to do. */

export type WorkflowStepErrorCode = "FUNCTION_COMPLETION_FAILED";

export abstract class WorkflowStepError extends Error {
  abstract readonly code: WorkflowStepErrorCode;
  override readonly cause: unknown;
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = new.target.name;
    this.cause = options.cause;
  }
}

/**
 * Slack could not be told the step's outcome (network, timeout, 5xx, rate limit, an unexpected error code). The
 * placement job is retried, and its next run tells Slack again; never carries a token.
 */
export class FunctionCompletionError extends WorkflowStepError {
  readonly code = "FUNCTION_COMPLETION_FAILED";
  constructor(
    readonly method: string,
    /** Slack's `error` when it answered one, else null. */
    readonly slackError: string | null,
    message: string,
    options: { cause?: unknown; retryAfterMs?: number } = {},
  ) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
  /** Slack's Retry-After on a 429, in ms. */
  readonly retryAfterMs: number | null;
}
