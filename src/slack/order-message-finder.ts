/**
 * Finding an order's message an interrupted `publish` left (`OrderNotifier.findPublished`): the post was attempted
 * (`message_attempted_at`) but its answer never recorded (a kill, a dropped connection, an answer after the timeout).
 * The message is recognised by the order id in its metadata, among the messages since the attempt:
 *
 * - in the order's channel, or in the ticket message's thread for a shortcut order;
 * - in the requester's DM with the app, where an App Home order's message goes (it has no channel), and where the
 *   message of a channel that refused it went instead (not a member, archived). A DM is posted to the person; its
 *   history is read by the conversation's id, which `conversations.open` gives (`im:write`, then `im:history`).
 *
 * The DM is read only when the channel shows no such message (or refuses the app). Workflow and command-line orders
 * have no DM to look in (their requester is the bot, or nobody in Slack). Without the scopes to look (an app
 * installed before they were added), it says so once per kind of place and finds nothing: the message is posted
 * again, a possible duplicate rather than a lost message.
 */
import { type Logger, pino } from "pino";
import type { Order, OriginMessage } from "../orders/model/order.ts";
import type { SlackCallOptions } from "../orders/ports.ts";
import { findPosted, type HistoryPace, slackErrorOf, type WebClient } from "./outbound/index.ts";

/** `metadata.event_type` of an order's message; `event_payload.order_id` names the order. */
export const ORDER_MESSAGE_EVENT_TYPE = "order_desk_order";

/** The channel is not one the app can read or post in: the message may have gone to the requester's DM. */
const REFUSED = new Set(["not_in_channel", "channel_not_found"]);
/** Slack will never open a DM with this person: nothing was posted there. */
const NO_DM = new Set(["user_not_found", "account_inactive", "user_disabled", "cannot_dm_bot"]);
/** A user id: an order recorded with the requester as its channel (posted to the person, not yet answered). */
const USER_ID = /^[UW]/;

export interface OrderMessageFinderOptions {
  client: WebClient;
  /** The process's pace of history reads (outbound/history.ts). */
  history: HistoryPace;
  logger?: Logger | undefined;
  onRateLimited?: ((method: string) => void) | undefined;
}

export function createOrderMessageFinder(
  options: OrderMessageFinderOptions,
): (order: Order, callOptions?: SlackCallOptions) => Promise<OriginMessage | null> {
  const { client, history, onRateLimited } = options;
  const logger = options.logger ?? pino({ level: "silent" });
  const warned = { channel: false, dm: false };

  function warnOnce(where: "channel" | "dm", channel: string): void {
    if (warned[where]) return;
    warned[where] = true;
    if (where === "channel")
      logger.warn(
        { channel },
        "cannot read channel history (missing_scope): reinstall the app with manifest.yml's history scopes, or an order message interrupted by a crash may appear twice",
      );
    else
      logger.warn(
        { user: channel },
        "cannot look in the requester's DM for an order message an interrupted attempt posted (missing_scope): reinstall the app with manifest.yml's scopes (im:write, im:history), or such a message (an App Home order's) may appear twice",
      );
  }

  function find(order: Order, channel: string, threadTs: string | null, signal?: AbortSignal) {
    const args = {
      channel,
      threadTs: threadTs ?? undefined,
      attemptedAt: order.messageAttemptedAt ?? order.createdAt,
      eventType: ORDER_MESSAGE_EVENT_TYPE,
      eventId: order.id,
      idKey: "order_id",
    };
    return findPosted(client, history, args, { signal, ...(onRateLimited && { onRateLimited }) });
  }

  /** The ts of the message in the channel (or the ticket's thread); "refused" when the app cannot be there. */
  async function inChannel(order: Order, channel: string, signal?: AbortSignal) {
    try {
      return await find(order, channel, order.slackThreadTs, signal);
    } catch (error) {
      const code = slackErrorOf(error);
      if (code !== null && REFUSED.has(code)) return "refused" as const;
      if (code !== "missing_scope") throw error;
      warnOnce("channel", channel);
      return "cannot_look" as const;
    }
  }

  /** The requester's DM channel and the message's ts in it, or null. */
  async function inRequesterDm(order: Order, signal?: AbortSignal) {
    try {
      const opened = await client.conversations.open({ users: order.requestedBy });
      const channel = opened.channel?.id;
      if (!channel) return null;
      const ts = await find(order, channel, null, signal);
      return ts === null ? null : { channel, ts };
    } catch (error) {
      const code = slackErrorOf(error);
      if (code !== null && NO_DM.has(code)) return null;
      if (code !== "missing_scope") throw error;
      warnOnce("dm", order.requestedBy);
      return null;
    }
  }

  return async (order, callOptions = {}) => {
    const { signal } = callOptions;
    const channel = order.slackChannelId && !USER_ID.test(order.slackChannelId) ? order.slackChannelId : null;
    if (channel) {
      const found = await inChannel(order, channel, signal);
      if (found === "cannot_look") return null;
      if (found !== null && found !== "refused") {
        logger.info(
          { orderId: order.id, channel, ts: found },
          "found the order's message posted by an interrupted attempt",
        );
        return {
          teamId: order.slackTeamId,
          channelId: channel,
          messageTs: found,
          threadTs: order.slackThreadTs,
        };
      }
    }
    // Workflow and command-line orders have no requester's DM (the bot, or nobody in Slack); a DM channel was searched.
    if (order.source === "workflow" || order.source === "cli" || channel?.startsWith("D")) return null;
    if (!USER_ID.test(order.requestedBy)) return null;
    // An App Home order's message, or the one a refusing channel sent to the requester's DM (with its own thread).
    const dm = await inRequesterDm(order, signal);
    if (!dm) return null;
    logger.info(
      { orderId: order.id, channel: dm.channel, ts: dm.ts },
      "found the order's message an interrupted attempt posted in the requester's DM",
    );
    return {
      teamId: order.slackTeamId,
      channelId: dm.channel,
      messageTs: dm.ts,
      threadTs: channel ? dm.ts : order.slackThreadTs,
    };
  };
}
