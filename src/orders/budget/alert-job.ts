/**
 * The `budget-alert` job (enqueued by ./reserve.ts in the transaction that accepted the order, so it exists exactly
 * when the order does): tells the admin channel that a profile's month reached 80 % or 100 % of its budget, or
 * that an order was placed over it (`onExceed: warn`), and then says so in that order's thread too. The thread
 * line waits (re-scheduled, not failed) until the order's message is posted, at most `threadWaitMs`.
 */
import { type Logger, pino } from "pino";
import { RetryLaterError } from "../../jobs/errors.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import type { BudgetAlertJobData } from "../../jobs/payloads.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import type { Store } from "../../store/db.ts";
import { getOrder } from "../../store/repositories/orders.ts";
import { inert } from "../inert.ts";
import type { Order } from "../model/order.ts";
import type { OrderNotifier } from "../ports.ts";
import type { SlackChat } from "../updates/chat-port.ts";
import { moneyText } from "./format.ts";

export interface BudgetAlertDeps {
  store: Store;
  notifier: Pick<OrderNotifier, "alertAdmins">;
  chat: Pick<SlackChat, "postMessage" | "findReply">;
  now?: () => Date;
  /** How long the thread line waits for the order's message before it is left out (default 10 min). */
  threadWaitMs?: number;
  logger?: Logger;
}

const RETRY_MS = 2_000;

/** `metadata.event_type` of the over-budget line in an order's thread. */
export const OVER_BUDGET_REPLY_TYPE = "order_desk_over_budget";

/** The line in an order's thread when `warn` placed it over the budget. */
export function overBudgetLine(
  data: { spent: string; monthly: string; currency: string },
  profile: string,
): string {
  return `⚠️ Over budget: with this order ${inert(profile)} has spent ${moneyText(data.spent, data.currency)} this month, over its monthly budget of ${moneyText(data.monthly, data.currency)}. It was placed anyway (the budget warns); the admins were told.`;
}

function orderName(order: Order): string {
  return `order ${inert(order.externalDocumentNumber)}${order.customerReference ? ` for ${inert(order.customerReference)}` : ""}`;
}

export function budgetAlertHandler(deps: BudgetAlertDeps): JobHandler<BudgetAlertJobData> {
  const logger = deps.logger ?? pino({ level: "silent" });
  const now = deps.now ?? (() => new Date());
  return async (job) => {
    const data = job.data;
    if (data.kind === "threshold") {
      const spent = moneyText(data.spent, data.currency);
      const monthly = moneyText(data.monthly, data.currency);
      await deps.notifier.alertAdmins({
        key: `budget:${data.profile}:${data.month}:${data.percent}`,
        title: data.percent === 100 ? "Monthly budget used up" : "Monthly budget 80 % used",
        text: `The profile "${inert(data.profile)}" has spent ${spent} of its ${monthly} budget in ${data.month} (${data.percent === 100 ? "100 % or more" : "80 % or more"}), counting orders waiting for approval.`,
      });
      logger.info({ profile: data.profile, month: data.month, percent: data.percent }, "budget alert sent");
      return;
    }
    const order = await getOrder(deps.store, data.orderId);
    if (!order) return;
    const thread = order.slackThreadTs ?? order.slackMessageTs;
    const waited = now().getTime() - job.createdAt.getTime();
    if ((!order.slackChannelId || !thread) && waited < (deps.threadWaitMs ?? 600_000)) {
      throw new RetryLaterError(RETRY_MS, "the order's message is not posted yet");
    }
    // The admins first: their alert is once per order (the job's id); the thread line follows.
    await deps.notifier.alertAdmins({
      key: `budget:over:${order.id}`,
      title: "Order placed over budget",
      text: `${orderName(order)} (${moneyText(order.total ?? "0", data.currency)}) took "${inert(order.profile)}" to ${moneyText(data.spent, data.currency)} this month, over its monthly budget of ${moneyText(data.monthly, data.currency)}. It was placed: the profile's budget only warns (onExceed: warn).`,
    });
    if (order.slackChannelId && thread) {
      // A run after one whose answer was lost (a timeout, a crash) finds the line in the thread instead of posting
      // it again: the reply carries the order's id in its metadata. Read only on a rerun, as post-update does.
      const posted =
        job.attempt > 1
          ? await deps.chat.findReply({
              channel: order.slackChannelId,
              threadTs: thread,
              eventType: OVER_BUDGET_REPLY_TYPE,
              eventId: order.id,
              attemptedAt: job.createdAt,
            })
          : null;
      if (posted === null) {
        await deps.chat.postMessage({
          channel: order.slackChannelId,
          thread_ts: thread,
          text: overBudgetLine(data, order.profile),
          metadata: {
            event_type: OVER_BUDGET_REPLY_TYPE,
            event_payload: { event_id: order.id, order_id: order.id },
          },
        });
      }
    }
    logger.info({ orderId: order.id }, "order over budget told");
  };
}

export function workBudgetAlerts(jobs: Pick<Jobs, "work">, deps: BudgetAlertDeps): void {
  jobs.work(QUEUES.budgetAlert, budgetAlertHandler(deps), { concurrency: 1 });
}
