/**
 * The Slack side of `OrderNotifier`: the order's message in its channel (or, for the message shortcut, in the
 * ticket message's thread), kept up to date with `chat.update`; a DM to the requester when the bot cannot post
 * in the channel, saying how to fix it (not for workflow orders: their requester is the bot, so the admin
 * channel is told instead); admin alerts in the admin channel, each sent once (each carries its key in its metadata:
 * a caller that records its attempts, as the budget alerts do, has it looked for before it is posted again); the
 * order's message an interrupted attempt left, wherever it went, found by `order-message-finder.ts`. Every
 * post and update, and every 429, is counted in the same Prometheus counters the post-update worker uses. Every post waits for its channel's
 * pace (`ChannelPacer`, shared with the post-update worker: order messages, replies and alerts together keep to
 * Slack's ~1 message per second per channel).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { types } from "@slack/bolt";
import { type Logger, pino } from "pino";
import type { Customer } from "../config/catalog.ts";
import type { Metrics } from "../metrics.ts";
import type { Order, OriginMessage } from "../orders/model/order.ts";
import type {
  AdminAlert,
  AlertOptions,
  OrderChange,
  OrderNotifier,
  SlackCallOptions,
} from "../orders/ports.ts";
import { ChannelPacer } from "../orders/updates/pacer.ts";
import { orderMessage, recipientUserId } from "./blocks/order-message.ts";
import { shown, truncate } from "./blocks/text.ts";
import { createOrderMessageFinder, ORDER_MESSAGE_EVENT_TYPE } from "./order-message-finder.ts";
import {
  findPosted,
  HistoryPace,
  isCannotPostHere,
  slackErrorOf,
  toSlackCallError,
  type WebClient,
} from "./outbound/index.ts";

export interface SlackNotifierOptions {
  client: WebClient;
  customer: Customer;
  /** Channel for admin alerts (the customer file's `adminChannel`). */
  adminChannel: string;
  logger?: Logger;
  now?: () => Date;
  /** `order_desk_slack_posts_total` / `order_desk_slack_rate_limited_total`, by Web API method. */
  metrics?: Pick<Metrics, "slackPosts" | "slackRateLimited">;
  /** The process's per-channel pace, shared with the post-update worker (default: one of its own). */
  pacer?: ChannelPacer;
  /** The process's pace of history reads (outbound/history.ts), shared with the post-update worker's. */
  history?: HistoryPace;
}

export { ORDER_MESSAGE_EVENT_TYPE };
/** `metadata.event_type` of an admin alert without buttons; `event_payload.event_id` is its key. */
export const ADMIN_ALERT_EVENT_TYPE = "order_desk_admin_alert";

/** Calls refused with 429 are tried this many times in all, each after its Retry-After. */
const RATE_LIMITED_ATTEMPTS = 4;

type SlackMetrics = NonNullable<SlackNotifierOptions["metrics"]>;

/**
 * Slack answered 429: it did not take the call, so waiting for Retry-After and calling again cannot show a
 * message twice (unlike a retry after a timeout or a dropped connection, which this client never makes).
 * Each 429 is counted under `method`.
 */
async function patiently<T>(
  metrics: SlackMetrics | undefined,
  method: string,
  call: () => Promise<T>,
  signal?: AbortSignal,
  paced?: { pacer: ChannelPacer; channel: string },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    if (paced) {
      // Always reserves: a message that must go out waits its turn rather than being dropped.
      const { waitMs } = paced.pacer.reserve(paced.channel, Number.POSITIVE_INFINITY);
      if (waitMs > 0) await sleep(waitMs, undefined, { signal });
    }
    try {
      return await call();
    } catch (error) {
      const { retryAfterMs } = toSlackCallError(method, error);
      if (retryAfterMs === null) throw error;
      metrics?.slackRateLimited.inc({ method });
      paced?.pacer.pauseUntil(paced.channel, Date.now() + retryAfterMs);
      if (attempt >= RATE_LIMITED_ATTEMPTS) throw error;
      if (!paced) await sleep(retryAfterMs, undefined, { signal });
    }
  }
}

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const USER_ID = /^[UW][A-Z0-9]{2,}$/;
/** Longest title and text of an alert; a section holds 3,000 characters. */
const ALERT_TITLE_MAX = 150;
const ALERT_TEXT_MAX = 2800;

/**
 * An admin alert as a message: its words escaped (a ticket id or supplier message in them can mention no one and
 * plant no link), its channel and person references as Slack links. `text`, what the notification shows, is
 * the same mrkdwn as the block.
 */
export function renderAdminAlert(alert: AdminAlert): { text: string; blocks: types.KnownBlock[] } {
  const parts = typeof alert.text === "string" ? [alert.text] : alert.text;
  const body = parts
    .map((part) => {
      if (typeof part === "string") return shown(part, ALERT_TEXT_MAX);
      if ("channel" in part)
        return CHANNEL_ID.test(part.channel) ? `<#${part.channel}>` : shown(part.channel, 40);
      return USER_ID.test(part.user) ? `<@${part.user}>` : shown(part.user, 40);
    })
    .join("");
  const title = shown(alert.title, ALERT_TITLE_MAX);
  return {
    text: truncate(`:rotating_light: ${title}: ${body}`, 3000),
    blocks: [
      {
        type: "section",
        text: { type: "mrkdwn", text: truncate(`:rotating_light: *${title}*\n${body}`, 3000) },
      },
    ],
  };
}

export function cannotPostNote(channelId: string): string {
  return `:warning: I could not post this order in <#${channelId}>: Order Desk is not a member of that channel. Add it with \`/invite @Order Desk\` there so the next orders appear in the channel. This order's updates will follow here.`;
}

/** The admin alert when a workflow order cannot be shown in its channel (there is no person to DM instead). */
export function workflowCannotPostAlert(
  order: Order,
  channelId: string,
  recipient: string | null,
): AdminAlert {
  const ticket = order.customerReference ? ` for ${order.customerReference}` : "";
  return {
    key: `workflow-cannot-post:${order.id}:${channelId}`,
    title: `Workflow order ${order.externalDocumentNumber}: its channel refuses the order's message`,
    text: [
      `Order ${order.externalDocumentNumber}${ticket}, placed by a workflow's "Place IT order" step, cannot be posted in `,
      { channel: channelId },
      ": Order Desk is not a member of that channel (or it was archived). Add it with /invite @Order Desk there: the " +
        "order's message and its shipping updates then appear in the channel. The order itself is not affected",
      ...(recipient ? ["; it is for ", { user: recipient }] : []),
      ".",
    ],
  };
}

export function createSlackNotifier(options: SlackNotifierOptions): OrderNotifier {
  const { client, customer, metrics } = options;
  const pacer = options.pacer ?? new ChannelPacer();
  const logger = options.logger ?? pino({ level: "silent" });
  const now = options.now ?? (() => new Date());
  const alerted = new Set<string>();
  const render = (order: Order, note?: string) =>
    orderMessage(order, {
      customer,
      now: now(),
      ...(note ? { note } : {}),
    });

  async function post(
    order: Order,
    channel: string,
    threadTs: string | null,
    signal: AbortSignal | undefined,
    note?: string,
  ) {
    const message = render(order, note);
    const res = await patiently(
      metrics,
      "chat.postMessage",
      () =>
        client.chat.postMessage({
          channel,
          text: message.text,
          blocks: message.blocks,
          ...(threadTs ? { thread_ts: threadTs } : {}),
          unfurl_links: false,
          metadata: { event_type: ORDER_MESSAGE_EVENT_TYPE, event_payload: { order_id: order.id } },
        }),
      signal,
      { pacer, channel },
    );
    metrics?.slackPosts.inc({ method: "chat.postMessage" });
    if (!res.ts || !res.channel) throw new Error("chat.postMessage answered without channel or ts");
    return { channel: res.channel, ts: res.ts };
  }

  const history = options.history ?? new HistoryPace();
  const onRateLimited = (method: string) => metrics?.slackRateLimited.inc({ method });
  const findPublished = createOrderMessageFinder({ client, history, logger, onRateLimited });

  let warnedNoAlertSearch = false;

  /**
   * The alert an interrupted attempt since `attemptedAt` left in the admin channel (found by its key), or null.
   * Without the history scopes it cannot look: it says so once, and the alert is posted again.
   */
  async function earlierAlert(alert: AdminAlert, attemptedAt: Date): Promise<string | null> {
    const channel = options.adminChannel;
    try {
      const args = { channel, attemptedAt, eventType: ADMIN_ALERT_EVENT_TYPE, eventId: alert.key };
      const ts = await findPosted(client, history, args, { onRateLimited });
      if (ts !== null)
        logger.info({ key: alert.key, ts }, "found the admin alert an interrupted attempt posted");
      return ts;
    } catch (error) {
      if (slackErrorOf(error) !== "missing_scope") throw error;
      if (!warnedNoAlertSearch) {
        warnedNoAlertSearch = true;
        logger.warn(
          { channel },
          "cannot read the admin channel (missing_scope): reinstall the app with manifest.yml's history scopes, or an alert interrupted by a crash may appear twice",
        );
      }
      return null;
    }
  }

  async function alertAdmins(alert: AdminAlert, alertOptions: AlertOptions = {}): Promise<void> {
    if (alerted.has(alert.key)) return;
    alerted.add(alert.key);
    try {
      const { earlierAttempt } = alertOptions;
      if (earlierAttempt && (await earlierAlert(alert, earlierAttempt)) !== null) return;
      const message = renderAdminAlert(alert);
      await patiently(
        metrics,
        "chat.postMessage",
        () =>
          client.chat.postMessage({
            channel: options.adminChannel,
            text: message.text,
            blocks: message.blocks,
            metadata: { event_type: ADMIN_ALERT_EVENT_TYPE, event_payload: { event_id: alert.key } },
          }),
        undefined,
        { pacer, channel: options.adminChannel },
      );
      metrics?.slackPosts.inc({ method: "chat.postMessage" });
    } catch (error) {
      alerted.delete(alert.key); // let the next occurrence try again
      throw error;
    }
  }

  return {
    findPublished,

    async publish(
      order: Order,
      change: OrderChange,
      callOptions: SlackCallOptions = {},
    ): Promise<OriginMessage | null> {
      const { signal } = callOptions;
      if (order.slackChannelId && order.slackMessageTs) {
        const message = render(order);
        const { slackChannelId, slackMessageTs } = order;
        await patiently(
          metrics,
          "chat.update",
          () =>
            client.chat.update({
              channel: slackChannelId,
              ts: slackMessageTs,
              text: message.text,
              blocks: message.blocks,
            }),
          signal,
        );
        metrics?.slackPosts.inc({ method: "chat.update" });
        return null;
      }
      const teamId = order.slackTeamId;
      // Orders from App Home have no channel: their message lives in the requester's DM with the app.
      const channel = order.slackChannelId ?? order.requestedBy;
      try {
        const posted = await post(order, channel, order.slackThreadTs, signal);
        return { teamId, channelId: posted.channel, messageTs: posted.ts, threadTs: order.slackThreadTs };
      } catch (error) {
        if (!isCannotPostHere(error) || channel === order.requestedBy) throw error;
        if (order.source === "workflow") {
          // The requester is the bot itself: a DM would go nowhere. The step checked the channel when it started;
          // it changed since. Tell the admins how to fix it; the message is posted once the bot is back in the
          // channel (the next change, or the post-update worker's missing-message recovery).
          logger.warn(
            { orderId: order.id, channel, change: change.kind },
            "cannot post a workflow order's message in its channel; alerting the admins",
          );
          await alertAdmins(workflowCannotPostAlert(order, channel, recipientUserId(order))).catch(
            (alertError: unknown) => logger.error({ err: alertError }, "could not alert the admins"),
          );
          throw error;
        }
        logger.warn(
          { orderId: order.id, channel, change: change.kind },
          "cannot post in the order's channel; sending the confirmation to the requester's DM",
        );
        const posted = await post(order, order.requestedBy, null, signal, cannotPostNote(channel));
        // The DM message starts its own thread: updates go there, not to the channel's thread.
        return { teamId, channelId: posted.channel, messageTs: posted.ts, threadTs: posted.ts };
      }
    },

    alertAdmins,
  };
}
