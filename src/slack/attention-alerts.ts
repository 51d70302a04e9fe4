/**
 * The Slack side of `AttentionAlerts` (src/orders/operations/report.ts): an item's alert in the admin channel,
 * with its buttons, and the same message rewritten with the outcome once someone acted on it. The client must not
 * retry on its own (a retried post whose answer was lost would show the alert twice): the reporter's next run
 * tries again instead, and first looks in the admin channel for the alert an interrupted attempt may have posted
 * (by the item's id in its metadata).
 */
import type { Metrics } from "../metrics.ts";
import type { AttentionAlerts } from "../orders/operations/report.ts";
import type { ChannelPacer } from "../orders/updates/pacer.ts";
import { attentionAlertMessage, detachedNote } from "./blocks/attention.ts";
import {
  findInPages,
  HISTORY_PAGE_LIMIT,
  HistoryPace,
  oldestBefore,
  withMetadata,
} from "./outbound/history.ts";
import type { WebClient } from "./outbound/index.ts";

/** The metadata type of an alert: an attempt after one whose answer was lost finds it by the item's id. */
export const ATTENTION_ALERT_TYPE = "order_desk_attention_alert";

export interface SlackAttentionAlertsOptions {
  client: WebClient;
  adminChannel: string;
  pacer?: ChannelPacer;
  metrics?: Pick<Metrics, "slackPosts"> | undefined;
  /** The process's pace of history reads (finding an alert an interrupted attempt posted). */
  history?: HistoryPace | undefined;
}

export function createSlackAttentionAlerts(options: SlackAttentionAlertsOptions): AttentionAlerts {
  const { client, adminChannel, pacer, metrics } = options;
  const history = options.history ?? new HistoryPace();

  /** The item's alert, if an attempt since `attemptedAt` posted it (read only after such an attempt). */
  const find = (itemId: string, attemptedAt: Date) =>
    findInPages(
      (cursor) =>
        history.call("conversations.history", () =>
          client.conversations.history({
            channel: adminChannel,
            limit: HISTORY_PAGE_LIMIT,
            include_all_metadata: true,
            oldest: oldestBefore(attemptedAt),
            ...(cursor && { cursor }),
          }),
        ),
      withMetadata(ATTENTION_ALERT_TYPE, "event_id", itemId),
    );

  return {
    async post(item, earlierAttempt) {
      const found = earlierAttempt ? await find(item.id, earlierAttempt) : null;
      if (found !== null) return { channelId: adminChannel, ts: found };
      // Keeps the admin channel's pace with the other alerts and order messages; a paced post waits its turn.
      const waitMs = pacer?.reserve(adminChannel, Number.POSITIVE_INFINITY).waitMs ?? 0;
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      const message = attentionAlertMessage(item);
      const res = await client.chat.postMessage({
        channel: adminChannel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
        metadata: { event_type: ATTENTION_ALERT_TYPE, event_payload: { event_id: item.id } },
      });
      metrics?.slackPosts.inc({ method: "chat.postMessage" });
      if (!res.ts || !res.channel) throw new Error("chat.postMessage answered without channel or ts");
      return { channelId: res.channel, ts: res.ts };
    },
    async showOutcome(item) {
      if (!item.alertChannelId || !item.alertTs) return;
      const message = attentionAlertMessage(item);
      await client.chat.update({
        channel: item.alertChannelId,
        ts: item.alertTs,
        text: message.text,
        blocks: message.blocks,
      });
      metrics?.slackPosts.inc({ method: "chat.update" });
    },
    async noteDetached(thread, item) {
      const res = await client.chat.postMessage({
        channel: thread.channelId,
        thread_ts: thread.threadTs,
        text: detachedNote(item),
        unfurl_links: false,
      });
      metrics?.slackPosts.inc({ method: "chat.postMessage" });
      if (!res.ts) throw new Error("chat.postMessage answered without ts");
      return res.ts;
    },
  };
}
