/**
 * Posts one supplier event's reply, and copes with Slack refusing the message as built (too long, blocks it will
 * not take): that refusal is the same on every retry, so retrying would hold every later update of the order
 * behind it for good. The reply is posted once more in short; refused again, the event is recorded as skipped
 * (`post_error` says why) and the order's next updates go out.
 */
import type { Logger } from "pino";
import type { Store } from "../../store/db.ts";
import { markPostSkipped } from "../../store/repositories/events.ts";
import type { PostMessageArgs, SlackChat } from "./chat-port.ts";
import { ChatMessageRefusedError } from "./errors.ts";

export type ReplyOutcome =
  | { kind: "posted"; ts: string; shortened: boolean }
  | { kind: "skipped"; slackError: string };

export interface ReplyToPost {
  eventId: string;
  message: PostMessageArgs;
  /** The reply in short, for after Slack refused `message` (`renderShortReply`). */
  short(slackError: string): { text: string; blocks: unknown[] };
}

/** Throws what Slack answered other than a refusal of the message (rate limits, a gone channel, outages). */
export async function postReply(
  deps: { store: Store; slack: SlackChat; now: () => Date },
  reply: ReplyToPost,
  logger: Logger,
): Promise<ReplyOutcome> {
  let refused: ChatMessageRefusedError;
  try {
    return { kind: "posted", ts: (await deps.slack.postMessage(reply.message)).ts, shortened: false };
  } catch (error) {
    if (!(error instanceof ChatMessageRefusedError)) throw error;
    refused = error;
  }
  logger.warn(
    { eventId: reply.eventId, slackError: refused.reason },
    "Slack refused the update's reply as built; posting it in short",
  );
  const short = reply.short(refused.reason);
  try {
    const { ts } = await deps.slack.postMessage({ ...reply.message, text: short.text, blocks: short.blocks });
    return { kind: "posted", ts, shortened: true };
  } catch (error) {
    if (!(error instanceof ChatMessageRefusedError)) throw error;
    await markPostSkipped(deps.store, reply.eventId, {
      code: error.code,
      slackError: error.reason,
      message: error.message,
      skipped: true,
      at: deps.now(),
    });
    logger.error(
      { eventId: reply.eventId, slackError: error.reason, firstError: refused.reason },
      "Slack refused the update's reply even in short; it is skipped so the order's later updates go out",
    );
    return { kind: "skipped", slackError: error.reason };
  }
}
