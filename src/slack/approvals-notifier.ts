/**
 * The Slack side of `ApprovalNotifier` (src/orders/approvals/ports.ts): the approvers' DMs (posted to the user id,
 * which Slack turns into the app's DM with them), their updates with the decision, the reminder in each DM's
 * thread, and the decision told in the order's thread. The client never re-sends by itself: the approval jobs
 * retry, and record each post before making it, so that a retry skips what was done and, after an attempt whose
 * answer was lost, first looks for the message it may have left (by the metadata every such post carries).
 */
import { type Logger, pino } from "pino";
import type { Customer } from "../config/catalog.ts";
import type { Metrics } from "../metrics.ts";
import type { ApprovalDm, ApprovalNotifier } from "../orders/approvals/ports.ts";
import { approvalRound } from "../orders/approvals/request.ts";
import { ApproverUnreachableError } from "../orders/errors.ts";
import type { Order } from "../orders/model/order.ts";
import { approvalDm, decisionAnnouncement, reminderText } from "./blocks/approval.ts";
import {
  type FindPostedArgs,
  findPosted,
  HistoryPace,
  slackErrorOf,
  type WebClient,
} from "./outbound/index.ts";

/** Slack's answers that mean this person will never get a DM from the app: final, not retried. */
const UNREACHABLE = new Set(["account_inactive", "user_not_found", "user_disabled", "cannot_dm_bot"]);

/** `metadata.event_type` of each approval post; `event_payload.event_id` is the order and its round (`roundId`). */
export const APPROVAL_REQUEST_TYPE = "order_desk_approval_request";
export const APPROVAL_REMINDER_TYPE = "order_desk_approval_reminder";
export const APPROVAL_DECISION_TYPE = "order_desk_approval_decision";

/**
 * The order's approval round as a metadata id: after Fix and resubmit, the new round's DMs and decision are not
 * mistaken for the first round's (the decision of both is told in the same thread).
 */
export function roundId(order: Order): string {
  const round = approvalRound(order);
  return round === "" ? order.id : `${order.id}@${round}`;
}

export interface SlackApprovalNotifierOptions {
  /** A client that never re-sends by itself (the `background` policy): the jobs retry. */
  client: WebClient;
  customer: Customer;
  metrics?: Pick<Metrics, "slackPosts" | "slackRateLimited"> | undefined;
  /** The process's pace of history reads (finding a post an interrupted attempt left). */
  history?: HistoryPace | undefined;
  logger?: Logger | undefined;
}

export function createSlackApprovalNotifier(options: SlackApprovalNotifierOptions): ApprovalNotifier {
  const { client, customer, metrics } = options;
  const history = options.history ?? new HistoryPace();
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "approvals-notifier" });
  const counted = (method: string) => metrics?.slackPosts.inc({ method });
  const onRateLimited = (method: string) => metrics?.slackRateLimited.inc({ method });
  const metadata = (eventType: string, order: Order) => ({
    event_type: eventType,
    event_payload: { event_id: roundId(order), order_id: order.id },
  });

  let warnedNoScope = false;
  /**
   * The ts of the post an earlier attempt left, or null. Without the scopes to look (an app installed before they
   * were added) it says so once and gives null: the post is made again, a possible duplicate beating a lost one.
   */
  async function earlierPost(
    find: () => Promise<string | null>,
    what: Pick<FindPostedArgs, "channel" | "eventType">,
  ): Promise<string | null> {
    try {
      const ts = await find();
      if (ts !== null)
        logger.info({ ...what, ts }, "found the post of an interrupted attempt; not posting again");
      return ts;
    } catch (error) {
      if (slackErrorOf(error) !== "missing_scope") throw error;
      if (!warnedNoScope) {
        warnedNoScope = true;
        logger.warn(
          what,
          "cannot look for an approval post an interrupted attempt left (missing_scope): reinstall the app with manifest.yml's scopes (im:write, the history scopes), or such a post may appear twice",
        );
      }
      return null;
    }
  }

  /** The approver's DM with this order's request, posted by an earlier attempt since `attemptedAt`, or null. */
  async function findRequest(
    order: Order,
    approver: string,
    attemptedAt: Date,
    signal?: AbortSignal,
  ): Promise<ApprovalDm | null> {
    let channel: string | undefined;
    const ts = await earlierPost(
      async () => {
        // Posted to the user id; the DM's history is read by its conversation id, which conversations.open gives.
        const opened = await client.conversations.open({ users: approver }).catch((error: unknown) => {
          const code = slackErrorOf(error);
          // Nobody to find: the post says so (ApproverUnreachableError).
          if (code !== null && UNREACHABLE.has(code)) return null;
          throw error;
        });
        channel = opened?.channel?.id;
        if (!channel) return null;
        const args = { channel, attemptedAt, eventType: APPROVAL_REQUEST_TYPE, eventId: roundId(order) };
        return findPosted(client, history, args, { signal, onRateLimited });
      },
      { channel: approver, eventType: APPROVAL_REQUEST_TYPE },
    );
    return ts === null || !channel ? null : { channelId: channel, messageTs: ts };
  }

  /** Whether an earlier attempt already posted this round's reply of `eventType` in the thread. */
  async function repliedBefore(
    order: Order,
    where: { channel: string; threadTs: string },
    eventType: string,
    earlierAttempt: Date | null | undefined,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    if (!earlierAttempt) return false;
    const args = { ...where, attemptedAt: earlierAttempt, eventType, eventId: roundId(order) };
    return (
      (await earlierPost(() => findPosted(client, history, args, { signal, onRateLimited }), args)) !== null
    );
  }

  return {
    async ask(order, approver, callOptions = {}) {
      const { earlierAttempt, signal } = callOptions;
      const found = earlierAttempt ? await findRequest(order, approver, earlierAttempt, signal) : null;
      if (found) return found;
      const message = approvalDm(order, customer);
      const res = await client.chat
        .postMessage({
          channel: approver,
          text: message.text,
          blocks: message.blocks,
          unfurl_links: false,
          metadata: metadata(APPROVAL_REQUEST_TYPE, order),
        })
        .catch((error: unknown) => {
          const code = slackErrorOf(error);
          throw code !== null && UNREACHABLE.has(code)
            ? new ApproverUnreachableError(approver, code, { cause: error })
            : error;
        });
      counted("chat.postMessage");
      if (!res.channel || !res.ts) throw new Error("chat.postMessage answered without channel or ts");
      return { channelId: res.channel, messageTs: res.ts };
    },

    async showDecision(order: Order, dm: ApprovalDm) {
      const message = approvalDm(order, customer);
      await client.chat.update({
        channel: dm.channelId,
        ts: dm.messageTs,
        text: message.text,
        blocks: message.blocks,
      });
      counted("chat.update");
    },

    async remind(order, dm, callOptions = {}) {
      const { earlierAttempt, signal } = callOptions;
      const where = { channel: dm.channelId, threadTs: dm.messageTs };
      if (await repliedBefore(order, where, APPROVAL_REMINDER_TYPE, earlierAttempt, signal)) return;
      await client.chat.postMessage({
        channel: dm.channelId,
        thread_ts: dm.messageTs,
        text: reminderText(order),
        metadata: metadata(APPROVAL_REMINDER_TYPE, order),
      });
      counted("chat.postMessage");
    },

    async announce(order, callOptions = {}) {
      const { earlierAttempt, signal } = callOptions;
      const channel = order.slackChannelId;
      const thread = order.slackThreadTs ?? order.slackMessageTs;
      if (!channel || !thread) throw new Error("the order has no message to reply to yet");
      const where = { channel, threadTs: thread };
      if (await repliedBefore(order, where, APPROVAL_DECISION_TYPE, earlierAttempt, signal)) return;
      await client.chat.postMessage({
        channel,
        thread_ts: thread,
        text: decisionAnnouncement(order),
        metadata: metadata(APPROVAL_DECISION_TYPE, order),
      });
      counted("chat.postMessage");
    },
  };
}
