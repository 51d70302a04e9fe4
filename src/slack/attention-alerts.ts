/**
 * The Slack side of `AttentionAlerts` (src/orders/operations/report.ts): an item's alert in the admin channel,
 * with its buttons, and the same message rewritten with the outcome once someone acted on it. The client must not
 * retry on its own (a retried post whose answer was lost would show the alert twice): the reporter's next run
 * tries again instead.
 */
import type { Metrics } from "../metrics.ts";
import type { AttentionAlerts } from "../orders/operations/report.ts";
import type { ChannelPacer } from "../orders/updates/pacer.ts";
import { attentionAlertMessage, detachedNote } from "./blocks/attention.ts";
import type { WebClient } from "./outbound/index.ts";

export interface SlackAttentionAlertsOptions {
  client: WebClient;
  adminChannel: string;
  pacer?: ChannelPacer;
  metrics?: Pick<Metrics, "slackPosts"> | undefined;
}

export function createSlackAttentionAlerts(options: SlackAttentionAlertsOptions): AttentionAlerts {
  const { client, adminChannel, pacer, metrics } = options;
  return {
    async post(item) {
      // Keeps the admin channel's pace with the other alerts and order messages; a paced post waits its turn.
      const waitMs = pacer?.reserve(adminChannel, Number.POSITIVE_INFINITY).waitMs ?? 0;
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      const message = attentionAlertMessage(item);
      const res = await client.chat.postMessage({
        channel: adminChannel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
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
