/**
 * The two Slack calls the post-update job makes, behind a narrow interface that speaks our error types.
 *
 * The WebClient is built to *reject* rate-limited calls instead of sleeping on them inside the SDK: a 429 then
 * becomes a re-scheduled job (`RetryLaterError`) that frees the worker, rather than a handler blocked for
 * Retry-After seconds. It does not retry either: a retried post whose first attempt did reach Slack would be a
 * duplicate reply; the job retries later, after checking what is already marked posted.
 */
import { webApi } from "@slack/bolt";
import { type Logger, pino } from "pino";
import { slackSdkLogger } from "../../log.ts";
import {
  isDestinationGone,
  isMessageRefused,
  SlackCallError,
  SlackDestinationGoneError,
  SlackMessageRefusedError,
  SlackRateLimitedError,
} from "./errors.ts";

export interface PostMessageArgs {
  channel: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  reply_broadcast?: boolean;
  /** Message metadata (e.g. the event id), so a reply can be traced back to its event. */
  metadata?: { event_type: string; event_payload: Record<string, string | number | boolean> };
}

export interface UpdateMessageArgs {
  channel: string;
  ts: string;
  text: string;
  blocks?: unknown[];
}

export interface FindReplyArgs {
  channel: string;
  threadTs: string;
  /** The reply's `metadata.event_type`. */
  eventType: string;
  /** Matched against the reply's `metadata.event_payload.event_id`. */
  eventId: string;
}

export interface SlackChat {
  /** Resolves to the new message's ts. Throws `UpdateError`s. */
  postMessage(args: PostMessageArgs): Promise<{ ts: string }>;
  update(args: UpdateMessageArgs): Promise<void>;
  /**
   * The ts of the thread's reply posted by us for this event, or null. Reads the thread
   * (`conversations.replies`, which needs the history scopes). Throws `UpdateError`s.
   */
  findReply(args: FindReplyArgs): Promise<string | null>;
}

/** Replies read per `conversations.replies` page; an order's thread holds a few dozen at most. */
const REPLIES_PAGE = 200;

export interface SlackChatOptions {
  token: string;
  /** The fake Slack in tests and the demo. */
  apiUrl?: string;
  /** Per-call timeout (default 10 s). */
  timeoutMs?: number;
  logger?: Logger;
}

/** Maps the SDK's errors to ours; `channel` is only used in messages. */
export function toUpdateError(method: string, channel: string, error: unknown): Error {
  if (error instanceof webApi.WebAPIRateLimitedError) {
    return new SlackRateLimitedError(method, Math.max(1, error.retryAfter) * 1000);
  }
  if (error instanceof webApi.WebAPIPlatformError) {
    const code = String(error.data.error);
    if (isDestinationGone(code)) return new SlackDestinationGoneError(method, code, channel);
    if (isMessageRefused(code)) return new SlackMessageRefusedError(method, code, { cause: error });
    return new SlackCallError(method, code, `Slack refused ${method}: ${code}`, { cause: error });
  }
  if (error instanceof webApi.WebAPIHTTPError) {
    return new SlackCallError(method, null, `Slack answered HTTP ${error.statusCode} to ${method}`, {
      cause: error,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new SlackCallError(method, null, `${method} did not reach Slack: ${reason}`, { cause: error });
}

/** A `SlackChat` over an existing WebClient (built with `rejectRateLimitedCalls: true`, see above). */
export function slackChatFromClient(client: webApi.WebClient): SlackChat {
  return {
    async postMessage(args) {
      try {
        const result = await client.chat.postMessage(args as webApi.ChatPostMessageArguments);
        if (typeof result.ts !== "string") {
          throw new SlackCallError("chat.postMessage", null, "Slack's answer to chat.postMessage had no ts");
        }
        return { ts: result.ts };
      } catch (error) {
        if (error instanceof SlackCallError) throw error;
        throw toUpdateError("chat.postMessage", args.channel, error);
      }
    },
    async update(args) {
      try {
        await client.chat.update(args as webApi.ChatUpdateArguments);
      } catch (error) {
        throw toUpdateError("chat.update", args.channel, error);
      }
    },
    async findReply({ channel, threadTs, eventType, eventId }) {
      let cursor: string | undefined;
      do {
        let page: webApi.ConversationsRepliesResponse;
        try {
          page = await client.conversations.replies({
            channel,
            ts: threadTs,
            limit: REPLIES_PAGE,
            include_all_metadata: true,
            ...(cursor && { cursor }),
          });
        } catch (error) {
          throw toUpdateError("conversations.replies", channel, error);
        }
        for (const message of page.messages ?? []) {
          const metadata = message.metadata;
          if (
            metadata?.event_type === eventType &&
            (metadata.event_payload as Record<string, unknown> | undefined)?.event_id === eventId
          ) {
            return message.ts ?? null;
          }
        }
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
      return null;
    },
  };
}

export function createSlackChat(options: SlackChatOptions): SlackChat {
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "slack-updates" });
  const client = new webApi.WebClient(options.token, {
    ...(options.apiUrl && { slackApiUrl: options.apiUrl }),
    timeout: options.timeoutMs ?? 10_000,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    logger: slackSdkLogger(logger),
  });
  return slackChatFromClient(client);
}
