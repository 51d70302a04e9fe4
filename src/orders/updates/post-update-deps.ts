/** What the post-update worker is built from (its ports and settings), and what it offers. */

import type { Logger } from "pino";
import type { JobHandler } from "../../jobs/worker.ts";
import type { Metrics } from "../../metrics.ts";
import type { Store } from "../../store/db.ts";
import type { DateNotice } from "../../store/repositories/order-risk.ts";
import type { Order } from "../model/order.ts";
import type { AdminAlert } from "../ports.ts";
import type { SlackChat } from "./chat-port.ts";
import type { PostUpdateJobData } from "./enqueue.ts";
import type { ChannelPacer } from "./pacer.ts";
import type { EventToRender } from "./stored-event.ts";
import type { BroadcastSettings, UpdatesVerbosity } from "./verbosity.ts";

export interface ParentMessage {
  text: string;
  blocks?: unknown[];
}

export interface ReplyMessage {
  text: string;
  blocks: unknown[];
}

export interface ReplyOptions {
  now: Date;
  /** IANA zone dates are shown in (default UTC). */
  timeZone?: string;
  /** The event happened before one already posted in the thread (it arrived late). */
  late: boolean;
}

/** How an order's message and its thread replies look: the Block Kit builders in src/slack/blocks/. */
export interface UpdatePresenter {
  /** The order message as it should look now, or null to leave it alone. */
  parent(order: Order): ParentMessage | null;
  /** An event's reply in the order's thread. */
  reply(event: EventToRender, order: Order, options: ReplyOptions): ReplyMessage;
  /** The reply cut down, after Slack refused the full one for good (`slackError` says why). */
  shortReply(event: EventToRender, order: Order, options: ReplyOptions, slackError: string): ReplyMessage;
}

export interface PostUpdateDeps {
  store: Store;
  slack: SlackChat;
  present: UpdatePresenter;
  /** Told each date notice once, when it is posted (metrics-dates.ts). */
  onDateNotice?: (order: Order, notice: DateNotice) => void;
  /** An event completed an order's delivery (once per order): how early or late it came (metrics). */
  onDelivered?: (order: Order) => void;
  /**
   * Shows a placed order whose message never made it to Slack (the placement job's posts failed while Slack
   * was down), so its updates have somewhere to go: posts (or finds) it and returns the order with its message
   * recorded. `showOrder` (src/orders/show-order.ts) with `{ kind: "placed" }`.
   */
  showMissingMessage?: (order: Order, signal?: AbortSignal) => Promise<Order>;
  /** How long after its last change an order without a message is taken to have lost it (default 10 s). */
  missingMessageAfterMs?: number;
  /** Reports a channel we can no longer post in (the admin channel). */
  alertAdmins?: (alert: AdminAlert) => Promise<void>;
  /** Shared by every job of this process; default 1 message/s per channel, bursts of 3. */
  pacer?: ChannelPacer;
  /**
   * Which updates also go to the channel (`reply_broadcast`), from the customer file's `broadcast:`; a kind left
   * out is broadcast (default: delivered, cancelled and delivery exceptions all are).
   */
  broadcast?: BroadcastSettings;
  /**
   * What the order's thread shows (verbosity.ts): the customer file's `updates` for the order's profile. Default
   * `all`, every event; the customer file's own default is `milestones`.
   */
  updates?: (order: Order) => UpdatesVerbosity;
  /**
   * An event is posted once it was received this long ago (default 0), so that an earlier event delivered
   * after it can still take its place in the thread. The same value as the receiver's settle delay.
   */
  settleMs?: number;
  /** Zone of the dates in replies (default UTC). */
  timeZone?: string;
  /**
   * The app's clock (default the real one): replies and date notices say their dates from its today. Durations
   * against the database's or the receiver's times (the settle delay, the quiet period) use the wall clock.
   */
  now?: () => Date;
  /** Longest wait for a pace slot inside a run; beyond it the job is re-scheduled (default 5 s). */
  maxPaceWaitMs?: number;
  /** When another replica holds the order (PostgreSQL), come back after this long (default 1 s). */
  busyRetryMs?: number;
  /** When the order's Slack message is not recorded yet, come back after this long (default 5 s). */
  noMessageRetryMs?: number;
  metrics?: Pick<Metrics, "slackPosts" | "slackRateLimited">;
  /**
   * Called with the order after supplier events changed it (status or tracking), before its replies are posted,
   * e.g. to refresh the requester's App Home. Its failures are logged; they never fail the job.
   */
  onOrderChanged?: (order: Order) => void | Promise<void>;
  /**
   * Called once the order's unposted supplier events are applied, with the newest one's id (the watchdog checks
   * the order again: src/orders/watchdog/). Its failure fails the run, which is retried: safe to repeat.
   */
  afterEvents?: (orderId: string, newestEventId: string) => Promise<void>;
  logger?: Logger;
}

export interface PostUpdateWorker {
  handler: JobHandler<PostUpdateJobData>;
  /** Runs the posting for an order now, outside the queue (tests, the CLI). */
  postOrderUpdates(
    orderId: string,
    options?: { signal?: AbortSignal; logger?: Logger },
  ): Promise<PostOutcome>;
}

export interface PostOutcome {
  applied: number;
  posted: number;
  parentUpdated: boolean;
}
