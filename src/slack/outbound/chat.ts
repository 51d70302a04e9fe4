/**
 * The post-update job's chat port (orders/updates/chat-port.ts) over Slack's Web API, with Slack's answers
 * sorted into the port's outcomes (orders/updates/errors.ts).
 *
 * Built on the `background` policy: a 429 is rejected instead of slept on inside the SDK, and becomes a
 * re-scheduled job that frees the worker rather than a handler blocked for Retry-After seconds. Nothing is
 * re-sent either: a retried post whose first attempt did reach Slack would be a duplicate reply; the job
 * retries later, after checking what is already marked posted.
 */
import { type Logger, pino } from "pino";
import type { SlackChat } from "../../orders/updates/chat-port.ts";
import {
  ChatCallFailedError,
  ChatDestinationGoneError,
  ChatMessageRefusedError,
  ChatRateLimitedError,
  type UpdateError,
} from "../../orders/updates/errors.ts";
import { createSlackWebClient, type WebClient } from "./client.ts";
import { toSlackCallError } from "./errors.ts";
import { findInPages, HISTORY_PAGE_LIMIT, HistoryPace, oldestBefore, withMetadata } from "./history.ts";
import { slackSdkLogger } from "./sdk-logger.ts";

/**
 * Slack errors that will not go away by retrying: someone must act in Slack (unarchive the channel, invite the
 * bot). Each with what to do about it.
 */
const DESTINATION_GONE: Record<string, string> = {
  channel_not_found: "the channel was deleted, or it is private and the bot was removed from it",
  is_archived: "the channel is archived; unarchive it for updates to resume",
  not_in_channel: "the bot is not in the channel; invite it with /invite @Order Desk",
  invalid_thread_ts: "the order's message was deleted, so there is no thread to reply in",
  thread_not_found: "the order's message was deleted, so there is no thread to reply in",
};

/** Slack errors about the message itself (too long, blocks it will not take, bad metadata). */
export const MESSAGE_REFUSED_ERRORS: ReadonlySet<string> = new Set([
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
]);

/** Slack's answer as the port's outcome; `channel` is only used in messages. */
export function toUpdateError(method: string, channel: string, error: unknown): UpdateError {
  const failed = toSlackCallError(method, error);
  if (failed.code === "SLACK_RATE_LIMITED")
    return new ChatRateLimitedError(method, failed.retryAfterMs ?? 1000);
  const reason = failed.slackError;
  if (reason !== null && Object.hasOwn(DESTINATION_GONE, reason)) {
    const message = `Slack refused ${method} in ${channel} (${reason}): ${DESTINATION_GONE[reason]}`;
    return new ChatDestinationGoneError(method, reason, channel, message);
  }
  if (reason !== null && MESSAGE_REFUSED_ERRORS.has(reason)) {
    return new ChatMessageRefusedError(method, reason, { cause: error });
  }
  return new ChatCallFailedError(method, reason, failed.message, { cause: error });
}

/**
 * A `SlackChat` over an existing client (built with the `background` policy, see above). Threads are read at
 * `history`'s pace (history.ts), shared with the rest of the process.
 */
export function slackChatFromClient(client: WebClient, history: HistoryPace = new HistoryPace()): SlackChat {
  return {
    async postMessage(args) {
      let ts: unknown;
      try {
        ts = (await client.chat.postMessage(args as Parameters<WebClient["chat"]["postMessage"]>[0])).ts;
      } catch (error) {
        throw toUpdateError("chat.postMessage", args.channel, error);
      }
      if (typeof ts !== "string") {
        throw new ChatCallFailedError(
          "chat.postMessage",
          null,
          "Slack's answer to chat.postMessage had no ts",
        );
      }
      return { ts };
    },
    async update(args) {
      try {
        await client.chat.update(args as Parameters<WebClient["chat"]["update"]>[0]);
      } catch (error) {
        throw toUpdateError("chat.update", args.channel, error);
      }
    },
    findReply({ channel, threadTs, eventType, eventId, attemptedAt }) {
      return findInPages(
        async (cursor) => {
          try {
            const args = {
              channel,
              ts: threadTs,
              limit: HISTORY_PAGE_LIMIT,
              include_all_metadata: true,
              ...(attemptedAt && { oldest: oldestBefore(attemptedAt) }),
              ...(cursor && { cursor }),
            };
            return await history.call("conversations.replies", () => client.conversations.replies(args));
          } catch (error) {
            throw toUpdateError("conversations.replies", channel, error);
          }
        },
        withMetadata(eventType, "event_id", eventId),
      );
    },
  };
}

export interface SlackChatOptions {
  token: string;
  /** The process's pace of history reads, shared with the notifier's (default: one of its own). */
  history?: HistoryPace;
  /** The fake Slack in tests and the demo. */
  apiUrl?: string;
  /** Per call. */
  timeoutMs: number;
  logger?: Logger;
}

export function createSlackChat(options: SlackChatOptions): SlackChat {
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "slack-updates" });
  const client = createSlackWebClient({
    token: options.token,
    policy: "background",
    timeoutMs: options.timeoutMs,
    apiUrl: options.apiUrl,
    logger: slackSdkLogger(logger),
  });
  return slackChatFromClient(client, options.history);
}
