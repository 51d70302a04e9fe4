/**
 * The watchdog as durable jobs on the `watchdog` queue. Nothing polls: an order gets a check when it is placed,
 * due at its first deadline (by the app's clock), and one after each batch of supplier events (a new estimate moves
 * the deadlines); each check runs the pure rule (./decide.ts) on the order as it is then, so a stale one does
 * nothing, and schedules the next at the next deadline (one job per order and time: the same check is never
 * queued twice).
 *
 * A condition found is recorded (once per order and condition, ever) in the transaction that enqueues its report:
 * a restart between the two cannot lose the report or make a second one. The report job posts the thread reply
 * (marked attempted first, so a rerun looks for it in the thread before posting) and opens the admins' attention
 * item with its alert. When the supplier's relevant event has come, the next check clears the report and closes
 * the item (its alert rewritten), without a second report.
 */
import { type Logger, pino } from "pino";
import { RetryLaterError } from "../../jobs/errors.ts";
import { jobId } from "../../jobs/ids.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import type { WatchdogJobData } from "../../jobs/payloads.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import type { Queryable, Store } from "../../store/db.ts";
import { getAttention, openAttention } from "../../store/repositories/attention.ts";
import { getOrder, getOrderForUpdate } from "../../store/repositories/orders.ts";
import {
  clearReport,
  getReportForUpdate,
  insertReport,
  markReplyAttempted,
  placedAtOf,
  recordPlacedAt,
  setReplyTs,
  setReportItem,
  type WatchdogReport,
} from "../../store/repositories/watchdog.ts";
import type { Order } from "../model/order.ts";
import { postAlert } from "../operations/post-alert.ts";
import type { AttentionAlerts } from "../operations/report.ts";
import { ORDER_DESK, resolveAndShow } from "../operations/resolve.ts";
import { subjectKey } from "../operations/types.ts";
import type { SlackChat } from "../updates/chat-port.ts";
import { checkWatchdog, type WatchdogCondition, type WatchdogRules } from "./decide.ts";
import { CLEARED_BECAUSE, overdueAlert, overdueReply } from "./messages.ts";

/** The metadata type of the watchdog's thread replies (a rerun finds an interrupted post by it). */
export const WATCHDOG_REPLY_TYPE = "order_desk_watchdog";

/** Longest wait before a check that ran early looks again. */
const EARLY_RETRY_MS = 1_000;

export interface WatchdogMetrics {
  /** A condition found for an order of this profile (counted once, when it is recorded). */
  stalled(profile: string, condition: WatchdogCondition): void;
}

export interface WatchdogDeps {
  store: Store;
  jobs: Pick<Jobs, "send">;
  rules: WatchdogRules;
  /** The app's clock: deadlines are computed and compared by it. */
  now?: () => Date;
  /** The order's thread. */
  chat: SlackChat;
  /** The admins' alert of an attention item. */
  alerts: AttentionAlerts;
  metrics?: WatchdogMetrics;
  newId?: () => string;
  logger?: Logger;
}

/** Enqueues a check of the order due at `at` (one job per order and time). */
export async function scheduleCheck(
  jobs: Pick<Jobs, "send">,
  orderId: string,
  at: Date,
  tx?: Queryable,
): Promise<void> {
  const dueAt = at.toISOString();
  await jobs.send(
    QUEUES.watchdog,
    { orderId, dueAt },
    { id: jobId(QUEUES.watchdog, orderId, "check", dueAt), startAfter: at, ...(tx && { tx }) },
  );
}

/**
 * Supplier events were applied to the order: a check now (they may clear a report or move a deadline), one per
 * batch (`key`: the newest event's id).
 */
export async function checkAfterEvents(
  jobs: Pick<Jobs, "send">,
  orderId: string,
  key: string,
): Promise<void> {
  await jobs.send(QUEUES.watchdog, { orderId }, { id: jobId(QUEUES.watchdog, orderId, "events", key) });
}

export function watchdogJobs(deps: WatchdogDeps) {
  const now = deps.now ?? (() => new Date());
  const logger = (deps.logger ?? pino({ level: "silent" })).child({ component: "watchdog" });
  const { store, jobs, rules } = deps;

  /**
   * The supplier accepted the order: its placement time is recorded (the first record stands, so a repeated
   * placement run changes nothing) and its first check is scheduled.
   */
  async function arm(order: Order): Promise<void> {
    const placedAt = await recordPlacedAt(store, order.id, now());
    await check(order.id, placedAt);
  }

  async function check(orderId: string, at: Date = now()): Promise<void> {
    // Decided on the order as locked in the transaction that records the verdict: a supplier event applied while
    // this check was deciding (a delivery, say) either commits first and is seen here, or waits and runs its own
    // check after this one; a report on a stale read would otherwise stay open with nothing left to clear it.
    const outcome = await store.transaction(async (tx) => {
      const order = await getOrderForUpdate(tx, orderId);
      const placedAt = order && (await placedAtOf(tx, orderId));
      // Placed before the watchdog existed, or never placed: nothing to measure against.
      if (!order || !placedAt) return null;
      const verdict = checkWatchdog(
        {
          status: order.status,
          heardFromSupplier: order.statusOccurredAt !== null || order.tracking !== null,
          placedAt,
          expectedDelivery: order.expectedDelivery,
        },
        at,
        rules,
      );
      const recorded: WatchdogReport[] = [];
      for (const overdue of verdict.holding) {
        const report = await insertReport(tx, orderId, overdue, at);
        if (!report) continue;
        recorded.push(report);
        await jobs.send(
          QUEUES.watchdog,
          { orderId, report: overdue.condition },
          { id: jobId(QUEUES.watchdog, orderId, "report", overdue.condition), tx },
        );
      }
      for (const condition of verdict.over) await clear(tx, order, condition, at);
      return { order, recorded, nextCheckAt: verdict.nextCheckAt };
    });
    if (!outcome) return;
    for (const report of outcome.recorded) {
      deps.metrics?.stalled(outcome.order.profile, report.condition);
      logger.info({ orderId, condition: report.condition, since: report.since }, "stalled order found");
    }
    if (outcome.nextCheckAt) await scheduleCheck(jobs, orderId, outcome.nextCheckAt);
  }

  /** The supplier's event came: the report (if any) clears, and its attention item closes by itself. */
  async function clear(tx: Queryable, order: Order, condition: WatchdogCondition, at: Date): Promise<void> {
    const report = await getReportForUpdate(tx, order.id, condition);
    if (!report || report.clearedAt !== null) return;
    await clearReport(tx, order.id, condition, at);
    if (report.attentionItemId === null) return;
    const reason =
      order.status === "cancelled" ? "the supplier cancelled the order" : CLEARED_BECAUSE[condition];
    await resolveAndShow(jobs, tx, report.attentionItemId, {
      resolution: "obsolete",
      by: ORDER_DESK,
      detail: { reason },
    });
    logger.info({ orderId: order.id, condition }, "stalled order cleared by the supplier's event");
  }

  async function report(orderId: string, condition: WatchdogCondition): Promise<void> {
    const order = await getOrder(store, orderId);
    const recorded = order && (await store.transaction((tx) => getReportForUpdate(tx, orderId, condition)));
    if (!order || !recorded) return;
    await reply(order, recorded);
    await raise(order, recorded);
  }

  /** The thread reply, once: a rerun after an interrupted post finds it in the thread instead of posting again. */
  async function reply(order: Order, report: WatchdogReport): Promise<void> {
    const channel = order.slackChannelId;
    const threadTs = order.slackThreadTs ?? order.slackMessageTs;
    if (report.replyTs !== null || !channel || !threadTs) return;
    const key = `${order.id}:${report.condition}`;
    let ts: string | null = null;
    if (report.replyAttemptedAt !== null) {
      ts = await deps.chat.findReply({
        channel,
        threadTs,
        eventType: WATCHDOG_REPLY_TYPE,
        eventId: key,
        attemptedAt: report.replyAttemptedAt,
      });
    }
    if (ts === null) {
      await markReplyAttempted(store, order.id, report.condition);
      const text = overdueReply(order, report, rules);
      ts = (
        await deps.chat.postMessage({
          channel,
          thread_ts: threadTs,
          text,
          metadata: { event_type: WATCHDOG_REPLY_TYPE, event_payload: { event_id: key, order_id: order.id } },
        })
      ).ts;
    }
    await setReplyTs(store, order.id, report.condition, ts);
  }

  /**
   * The attention item, opened with the report locked: a report cleared meanwhile gets none. Its alert is posted
   * after (a failed post is retried with the job, and by the sweep of unsent alerts).
   */
  async function raise(order: Order, report: WatchdogReport): Promise<void> {
    const alert = overdueAlert(order, report, rules);
    const item = await store.transaction(async (tx) => {
      const locked = await getReportForUpdate(tx, order.id, report.condition);
      if (!locked || locked.clearedAt !== null) return null;
      if (locked.attentionItemId !== null) {
        // Opened by an earlier run: its alert still to post, unless it was resolved meanwhile.
        const earlier = await getAttention(tx, locked.attentionItemId);
        return earlier && earlier.resolvedAt === null ? earlier : null;
      }
      const opened = await openAttention(tx, {
        id: (deps.newId ?? crypto.randomUUID.bind(crypto))(),
        ...subjectKey(alert.subject!),
        alert: { title: alert.title, text: alert.text },
      });
      await setReportItem(tx, order.id, report.condition, opened.item.id);
      return opened.item;
    });
    if (!item || item.alertTs !== null) return;
    await postAlert(store, deps.alerts, item);
  }

  const handler: JobHandler<WatchdogJobData> = async (job) => {
    const { orderId, dueAt, report: condition } = job.data;
    if (condition) return report(orderId, condition);
    const at = now();
    // Due by the app's clock: a queue that runs it early (the database's clock ahead of the app's) tries again
    // shortly, keeping its id, so the check is neither lost nor queued twice.
    if (dueAt !== undefined && Date.parse(dueAt) > at.getTime()) {
      const inMs = Math.min(Date.parse(dueAt) - at.getTime(), EARLY_RETRY_MS);
      throw new RetryLaterError(inMs, `the check of order ${orderId} is due at ${dueAt}`);
    }
    await check(orderId, at);
  };

  return { arm, check, handler };
}

/** Registers the watchdog's handler on its queue; returns what placement calls when an order is accepted. */
export function workWatchdog(
  jobs: Pick<Jobs, "send" | "work">,
  deps: WatchdogDeps,
  options: { concurrency?: number } = {},
) {
  const watchdog = watchdogJobs({ ...deps, jobs });
  jobs.work(QUEUES.watchdog, watchdog.handler, { concurrency: options.concurrency ?? 2 });
  return watchdog;
}
