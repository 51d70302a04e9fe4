/**
 * The `budget-alert` job (enqueued by ./reserve.ts in the transaction that accepted the order, so it exists exactly
 * when the order does): tells the admin channel that a profile's month reached 80 % or 100 % of its budget, or
 * that an order was placed over it (`onExceed: warn`, the first of the month), and says so in the thread of every
 * order placed over it. Whom to tell was claimed in the store by that transaction (budget_alerts), and the claim
 * records when the admins were told, so neither a rerun nor a restart nor another replica tells them twice. The
 * alert is recorded as attempted before Slack is called: a run after one whose answer was lost (a timeout, a kill
 * between the post and `told_at`) looks for it in the admin channel instead of posting it again. The thread line
 * waits (re-scheduled, not failed) until the order's message is posted, at most `threadWaitMs` by the wall clock.
 */
import { type Logger, pino } from "pino";
import { RetryLaterError } from "../../jobs/errors.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import type { BudgetAlertJobData } from "../../jobs/payloads.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import type { Store } from "../../store/db.ts";
import {
  type BudgetAlertKey,
  getBudgetAlert,
  markBudgetAlertAttempted,
  markBudgetAlertTold,
} from "../../store/repositories/budgets.ts";
import { getOrder } from "../../store/repositories/orders.ts";
import { inert } from "../inert.ts";
import type { Order } from "../model/order.ts";
import type { AdminAlert, OrderNotifier } from "../ports.ts";
import type { SlackChat } from "../updates/chat-port.ts";
import { moneyText } from "./format.ts";

export interface BudgetAlertDeps {
  store: Store;
  notifier: Pick<OrderNotifier, "alertAdmins">;
  chat: Pick<SlackChat, "postMessage" | "findReply">;
  now?: () => Date;
  /** The customer file's `locale`, which amounts are written in (default English). */
  locale?: string | undefined;
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
  locale?: string,
): string {
  return `⚠️ Over budget: with this order ${inert(profile)} has spent ${moneyText(data.spent, data.currency, locale)} this month, over its monthly budget of ${moneyText(data.monthly, data.currency, locale)}. It was placed anyway (the budget warns); the admins were told.`;
}

function orderName(order: Order): string {
  return `order ${inert(order.externalDocumentNumber)}${order.customerReference ? ` for ${inert(order.customerReference)}` : ""}`;
}

export function budgetAlertHandler(deps: BudgetAlertDeps): JobHandler<BudgetAlertJobData> {
  const logger = deps.logger ?? pino({ level: "silent" });
  const now = deps.now ?? (() => new Date());
  const money = (amount: string, currency: string) => moneyText(amount, currency, deps.locale);

  /** Attempt recorded, posted (or found where an earlier attempt left it), told recorded. */
  async function tell(key: BudgetAlertKey, alert: AdminAlert): Promise<void> {
    const earlierAttempt = await markBudgetAlertAttempted(deps.store, key);
    await deps.notifier.alertAdmins(alert, { earlierAttempt });
    await markBudgetAlertTold(deps.store, key, now());
  }

  return async (job) => {
    const data = job.data;
    if (data.kind === "threshold") {
      const key = { profile: data.profile, month: data.month, kind: String(data.percent) as "80" | "100" };
      if ((await getBudgetAlert(deps.store, key))?.toldAt) return;
      const spent = money(data.spent, data.currency);
      const monthly = money(data.monthly, data.currency);
      await tell(key, {
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
    // A wait, measured as the queue dates the job: on the wall clock (the app's may be set apart from it).
    const waited = Date.now() - job.createdAt.getTime();
    if ((!order.slackChannelId || !thread) && waited < (deps.threadWaitMs ?? 600_000)) {
      throw new RetryLaterError(RETRY_MS, "the order's message is not posted yet");
    }
    // The admins first, if this order claimed the month's over-budget alert and they were not told yet; the
    // thread line follows.
    const claim = await getBudgetAlert(deps.store, { overBudgetOrderId: order.id });
    if (claim && claim.toldAt === null) {
      await tell(claim, {
        key: `budget:${claim.profile}:${claim.month}:over`,
        title: "Order placed over budget",
        text: `${orderName(order)} (${money(order.total ?? "0", data.currency)}) took "${inert(order.profile)}" to ${money(data.spent, data.currency)} in ${claim.month}, over its monthly budget of ${money(data.monthly, data.currency)}. It was placed: the profile's budget only warns (onExceed: warn). Further orders over the budget this month are placed too, each with a line in its thread, without another alert.`,
      });
    }
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
          text: overBudgetLine(data, order.profile, deps.locale),
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
