/**
 * What can go wrong when posting an order's updates, as the chat port (ports.ts) reports it: a closed set the
 * post-update job switches on. Wait and retry (rate limited), stop for this order (the channel is gone for us),
 * post something shorter (this message is refused as it is), or fail this attempt (the job's retries apply).
 * The adapter (slack/outbound/chat.ts) decides which of Slack's answers is which; `reason` is Slack's word for
 * it (`is_archived`, `msg_too_long`), kept with the event when posting stops.
 */

/** Stored with an event's `post_error`: keep the values. */
export type UpdateErrorCode =
  | "SLACK_RATE_LIMITED"
  | "SLACK_DESTINATION_GONE"
  | "SLACK_MESSAGE_REFUSED"
  | "SLACK_CALL_FAILED";

export abstract class UpdateError extends Error {
  abstract readonly code: UpdateErrorCode;
  override readonly cause: unknown;

  constructor(
    /** The call that failed, e.g. `chat.postMessage` (for logs and metrics). */
    readonly method: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.cause = options.cause;
  }
}

/** Retry after `retryAfterMs`: nothing is posted before then. */
export class ChatRateLimitedError extends UpdateError {
  readonly code = "SLACK_RATE_LIMITED";
  constructor(
    method: string,
    readonly retryAfterMs: number,
  ) {
    super(method, `Slack rate-limited ${method}; retrying after ${Math.ceil(retryAfterMs / 1000)} s`);
  }
}

/**
 * Refused for good in this conversation until someone acts (unarchives the channel, invites the bot): posting
 * stops for the order; the error is recorded and reported to the admin channel. `message` says what to do.
 */
export class ChatDestinationGoneError extends UpdateError {
  readonly code = "SLACK_DESTINATION_GONE";
  constructor(
    method: string,
    readonly reason: string,
    readonly channel: string,
    message: string,
  ) {
    super(method, message);
  }
}

/**
 * Refused for good as built (too long, blocks it will not take): the same message is refused however often it is
 * sent, so retrying it would hold up every later update of the order behind it.
 */
export class ChatMessageRefusedError extends UpdateError {
  readonly code = "SLACK_MESSAGE_REFUSED";
  constructor(
    method: string,
    readonly reason: string,
    options: { cause?: unknown } = {},
  ) {
    super(method, `Slack refused ${method} (${reason}): the message as built cannot be posted`, options);
  }
}

/** Failed, may retry (network, timeout, 5xx, an answer we do not expect): the job's retry policy applies. */
export class ChatCallFailedError extends UpdateError {
  readonly code = "SLACK_CALL_FAILED";
  constructor(
    method: string,
    /** Slack's `error` when it answered one (e.g. `missing_scope`), else null. */
    readonly reason: string | null,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(method, message, options);
  }
}
