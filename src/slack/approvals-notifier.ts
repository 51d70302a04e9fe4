/**
 * The Slack side of `ApprovalNotifier` (src/orders/approvals/ports.ts): the approvers' DMs (posted to the user id,
 * which Slack turns into the app's DM with them), their updates with the decision, the reminder in each DM's
 * thread, and the decision told in the order's thread. The client never re-sends by itself: the approval jobs
 * retry, and record each DM so that a retry skips what was done.
 */
import type { Customer } from "../config/catalog.ts";
import type { Metrics } from "../metrics.ts";
import type { ApprovalDm, ApprovalNotifier } from "../orders/approvals/ports.ts";
import { ApproverUnreachableError } from "../orders/errors.ts";
import type { Order } from "../orders/model/order.ts";
import { approvalDm, decisionAnnouncement, reminderText } from "./blocks/approval.ts";
import { slackErrorOf, type WebClient } from "./outbound/index.ts";

/** Slack's answers that mean this person will never get a DM from the app: final, not retried. */
const UNREACHABLE = new Set(["account_inactive", "user_not_found", "user_disabled", "cannot_dm_bot"]);

export interface SlackApprovalNotifierOptions {
  /** A client that never re-sends by itself (the `background` policy): the jobs retry. */
  client: WebClient;
  customer: Customer;
  metrics?: Pick<Metrics, "slackPosts"> | undefined;
}

export function createSlackApprovalNotifier(options: SlackApprovalNotifierOptions): ApprovalNotifier {
  const { client, customer, metrics } = options;
  const counted = (method: string) => metrics?.slackPosts.inc({ method });

  return {
    async ask(order, approver) {
      const message = approvalDm(order, customer);
      const res = await client.chat
        .postMessage({ channel: approver, text: message.text, blocks: message.blocks, unfurl_links: false })
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

    async remind(order, dm) {
      await client.chat.postMessage({
        channel: dm.channelId,
        thread_ts: dm.messageTs,
        text: reminderText(order),
      });
      counted("chat.postMessage");
    },

    async announce(order) {
      const channel = order.slackChannelId;
      const thread = order.slackThreadTs ?? order.slackMessageTs;
      if (!channel || !thread) throw new Error("the order has no message to reply to yet");
      await client.chat.postMessage({ channel, thread_ts: thread, text: decisionAnnouncement(order) });
      counted("chat.postMessage");
    },
  };
}
