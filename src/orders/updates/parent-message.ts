/**
 * Brings an order's Slack message (the thread's parent) up to date after its replies went out. What each message
 * was last updated to is remembered, so that a run with nothing new for it (a retry, a job for events already
 * shown) costs no `chat.update` against the channel's rate limit. The memory is per process and bounded; losing
 * it (a restart, another replica) costs one identical update, never a wrong one.
 */
import type { Logger } from "pino";
import { RetryLaterError } from "../../jobs/errors.ts";
import type { Order } from "../model/order.ts";
import {
  ChatCallFailedError,
  ChatDestinationGoneError,
  ChatMessageRefusedError,
  ChatRateLimitedError,
} from "./errors.ts";
import type { PostUpdateDeps } from "./post-update-deps.ts";

const PARENT_CACHE_MAX = 10_000;

/** Updates the order's message if what it shows changed; true when it was updated. */
export type ParentUpdater = (order: Order, logger: Logger) => Promise<boolean>;

export function parentUpdater(deps: Pick<PostUpdateDeps, "slack" | "present" | "metrics">): ParentUpdater {
  const { slack } = deps;
  /** What each parent message was last updated to, so a re-run does not repeat an identical chat.update. */
  const lastParent = new Map<string, string>();

  return async function updateParent(order: Order, logger: Logger): Promise<boolean> {
    if (!order.slackChannelId || !order.slackMessageTs) return false;
    const rendered = deps.present.parent(order);
    if (!rendered) return false;
    const key = JSON.stringify(rendered);
    if (lastParent.get(order.id) === key) return false;
    try {
      await slack.update({
        channel: order.slackChannelId,
        ts: order.slackMessageTs,
        text: rendered.text,
        ...(rendered.blocks && { blocks: rendered.blocks }),
      });
      deps.metrics?.slackPosts.inc({ method: "chat.update" });
    } catch (error) {
      if (error instanceof ChatRateLimitedError) {
        deps.metrics?.slackRateLimited.inc({ method: error.method });
        throw new RetryLaterError(error.retryAfterMs, error.message, { cause: error });
      }
      if (
        error instanceof ChatDestinationGoneError ||
        error instanceof ChatMessageRefusedError ||
        (error instanceof ChatCallFailedError && error.reason)
      ) {
        // The replies are out; a parent we cannot edit (deleted, channel gone) is logged, not retried forever.
        logger.warn({ err: error, channel: order.slackChannelId }, "could not update the order message");
        return false;
      }
      throw error;
    }
    lastParent.delete(order.id);
    lastParent.set(order.id, key);
    if (lastParent.size > PARENT_CACHE_MAX) {
      const oldest = lastParent.keys().next().value;
      if (oldest !== undefined) lastParent.delete(oldest);
    }
    return true;
  };
}
