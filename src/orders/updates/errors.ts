/**
 * What can go wrong when posting an order's updates to Slack, as a closed set the post-update job switches on:
 * wait and retry (rate limited), stop for this order (the channel is gone for us), post something shorter
 * (Slack refuses this message as it is), or fail this attempt.
 */

export type UpdateErrorCode =
  | "SLACK_RATE_LIMITED"
  | "SLACK_DESTINATION_GONE"
  | "SLACK_MESSAGE_REFUSED"
  | "SLACK_CALL_FAILED";

export abstract class UpdateError extends Error {
  abstract readonly code: UpdateErrorCode;
  override readonly cause: unknown;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = new.target.name;
    this.cause = options.cause;
  }
}

/** Slack answered 429: nothing is posted for `retryAfterMs`. */
export class SlackRateLimitedError extends UpdateError {
  readonly code = "SLACK_RATE_LIMITED";
  constructor(
    readonly method: string,
    readonly retryAfterMs: number,
  ) {
    super(`Slack rate-limited ${method}; retrying after ${Math.ceil(retryAfterMs / 1000)} s`);
  }
}

/**
 * Slack errors that will not go away by retrying: someone must act in Slack (unarchive the channel, invite the
 * bot). Posting stops for the order; the error is recorded and reported to the admin channel.
 */
export const DESTINATION_GONE_ERRORS = [
  "channel_not_found",
  "is_archived",
  "not_in_channel",
  "invalid_thread_ts",
  "thread_not_found",
] as const;
export type DestinationGoneReason = (typeof DESTINATION_GONE_ERRORS)[number];

const HOW_TO_FIX: Record<DestinationGoneReason, string> = {
  channel_not_found: "the channel was deleted, or it is private and the bot was removed from it",
  is_archived: "the channel is archived; unarchive it for updates to resume",
  not_in_channel: "the bot is not in the channel; invite it with /invite @Order Desk",
  invalid_thread_ts: "the order's message was deleted, so there is no thread to reply in",
  thread_not_found: "the order's message was deleted, so there is no thread to reply in",
};

export function isDestinationGone(error: string): error is DestinationGoneReason {
  return (DESTINATION_GONE_ERRORS as readonly string[]).includes(error);
}

export class SlackDestinationGoneError extends UpdateError {
  readonly code = "SLACK_DESTINATION_GONE";
  constructor(
    readonly method: string,
    readonly slackError: DestinationGoneReason,
    readonly channel: string,
  ) {
    super(`Slack refused ${method} in ${channel} (${slackError}): ${HOW_TO_FIX[slackError]}`);
  }
}

/**
 * Slack errors about the message itself (too long, blocks it will not take, bad metadata): the same message is
 * refused however often it is sent, so retrying it would hold up every later update of the order behind it.
 */
export const MESSAGE_REFUSED_ERRORS = [
  "msg_too_long",
  "invalid_blocks",
  "invalid_blocks_format",
  "invalid_attachments",
  "too_many_attachments",
  "invalid_metadata_format",
  "invalid_metadata_schema",
  "metadata_too_large",
  "no_text",
  "invalid_arguments",
  "invalid_json",
  "json_not_object",
] as const;
export type MessageRefusedReason = (typeof MESSAGE_REFUSED_ERRORS)[number];

export function isMessageRefused(error: string): error is MessageRefusedReason {
  return (MESSAGE_REFUSED_ERRORS as readonly string[]).includes(error);
}

export class SlackMessageRefusedError extends UpdateError {
  readonly code = "SLACK_MESSAGE_REFUSED";
  constructor(
    readonly method: string,
    readonly slackError: MessageRefusedReason,
    options: { cause?: unknown } = {},
  ) {
    super(`Slack refused ${method} (${slackError}): the message as built cannot be posted`, options);
  }
}

/** Any other failure (network, timeout, 5xx, an error code we do not expect): the job's retry policy applies. */
export class SlackCallError extends UpdateError {
  readonly code = "SLACK_CALL_FAILED";
  constructor(
    readonly method: string,
    /** Slack's `error` when it answered one (e.g. `invalid_blocks`), else null. */
    readonly slackError: string | null,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
