/**
 * The budget decision, inside the transaction that accepts the order (src/orders/submit.ts): the profile's month
 * row is locked first, the month's spend read under that lock, and the order inserted (counting) before the lock is
 * released at commit. So the check and the acceptance are one decision: of two orders submitted at the same moment
 * against a budget that fits one, the second sees the first's total. The same on PGlite and PostgreSQL.
 */
import type { Budget } from "../../config/budget-schema.ts";
import { jobId } from "../../jobs/ids.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import type { BudgetAlertJobData } from "../../jobs/payloads.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { Queryable } from "../../store/db.ts";
import {
  checkSpend,
  claimBudgetAlerts,
  lockBudgetMonth,
  setBudgetMonth,
} from "../../store/repositories/budgets.ts";
import type { MatchedRule } from "../approvals/rules.ts";
import type { FieldErrors } from "../fields.ts";
import type { Order } from "../model/order.ts";
import { COUNTING_STATES } from "./counting.ts";
import { moneyText } from "./format.ts";
import { budgetMonth } from "./month.ts";

export interface BudgetDecision {
  profile: string;
  /** `YYYY-MM` in the customer's time zone. */
  month: string;
  monthly: string;
  currency: string;
  onExceed: Budget["onExceed"];
  /** The order's total, and the month's spend before and with it (decimal strings). */
  total: string;
  spent: string;
  after: string;
  /** What was left of the budget before the order. */
  left: string;
  /** The order takes the month over the budget. */
  over: boolean;
}

export interface BudgetContext {
  /** The customer file's `timeZone` (UTC when absent), `currency` and `locale` (amounts in the words below). */
  timeZone?: string | undefined;
  currency?: string | undefined;
  locale?: string | undefined;
}

/**
 * Locks the profile's month and checks the order's total against it. Null (and no lock) for a profile without a
 * budget or an order without a total. Must be the first thing the accepting transaction locks, so that every
 * transaction takes its locks in the same order.
 */
export async function checkBudget(
  tx: Queryable,
  context: BudgetContext,
  profile: { name: string; budget?: Budget | undefined },
  total: string | null | undefined,
  at: Date,
): Promise<BudgetDecision | null> {
  const budget = profile.budget;
  if (!budget || total == null || context.currency === undefined) return null;
  const month = budgetMonth(at, context.timeZone).label;
  await lockBudgetMonth(tx, profile.name, month);
  const spend = await checkSpend(tx, {
    profile: profile.name,
    month,
    total,
    monthly: budget.monthly,
    countingStates: COUNTING_STATES,
  });
  return {
    profile: profile.name,
    month,
    monthly: budget.monthly,
    currency: context.currency,
    onExceed: budget.onExceed,
    total,
    ...spend,
  };
}

/** The modal's (and the workflow step's) words for an order `refuse` turns away. */
export function refusalMessage(d: BudgetDecision, locale?: string): string {
  const money = (amount: string) => moneyText(amount, d.currency, locale);
  return `This order (${money(d.total)}) would take ${d.profile}'s spending this month over its budget of ${money(d.monthly)}: ${money(d.left)} is left. Order less, or ask an admin.`;
}

/** The `overBudget` rule, matched: the order waits for an approver (`onExceed: approve`). */
export function overBudgetRule(d: BudgetDecision, locale?: string): MatchedRule {
  return {
    rule: "overBudget",
    phrase: `going over the monthly budget (${moneyText(d.after, d.currency, locale)} of ${moneyText(d.monthly, d.currency, locale)})`,
  };
}

/**
 * After the order's insert, in the same transaction: the month it counts in, and the admins' alerts, claimed once
 * per profile, month and kind in the store (80 %, 100 %, and with `warn` the first order placed over the budget) and
 * enqueued as durable jobs that exist only if the order does. With `warn`, every order placed over the budget also
 * gets its thread line (a job per order: a deterministic job id).
 */
export async function recordSpend(
  tx: Queryable,
  jobs: Pick<Jobs, "send">,
  order: Order,
  context: BudgetContext,
  decision: BudgetDecision | null,
  at: Date,
): Promise<void> {
  if (order.total === null) return;
  const month = decision?.month ?? budgetMonth(at, context.timeZone).label;
  await setBudgetMonth(tx, order.id, month);
  if (!decision) return;
  const warned = decision.over && decision.onExceed === "warn";
  const claimed = await claimBudgetAlerts(tx, {
    profile: decision.profile,
    month,
    spent: decision.after,
    monthly: decision.monthly,
    over: warned,
    orderId: order.id,
    at,
  });
  // Straight past several at once: one alert, the highest (all are claimed). Over the budget says 100 % too.
  const percent = claimed.includes("over")
    ? null
    : claimed.includes("100")
      ? 100
      : claimed.includes("80")
        ? 80
        : null;
  if (percent !== null) {
    const data: BudgetAlertJobData = {
      kind: "threshold",
      profile: decision.profile,
      month,
      percent,
      spent: decision.after,
      monthly: decision.monthly,
      currency: decision.currency,
    };
    await jobs.send(QUEUES.budgetAlert, data, {
      id: jobId(QUEUES.budgetAlert, decision.profile, month, percent),
      tx,
    });
  }
  if (warned) {
    const data: BudgetAlertJobData = {
      kind: "over_budget",
      orderId: order.id,
      spent: decision.after,
      monthly: decision.monthly,
      currency: decision.currency,
    };
    await jobs.send(QUEUES.budgetAlert, data, { id: jobId(QUEUES.budgetAlert, order.id), tx });
  }
}

/** What the accepting transaction does with the budget's decision: refuse the order, or ask an approver. */
export interface BudgetGate {
  decision: BudgetDecision | null;
  /** `refuse` past the budget: the modal's errors (under the lines), the workflow step's failure. */
  refused: FieldErrors | null;
  /** `approve` past the budget: the `overBudget` rule, matched. */
  overBudget: MatchedRule | null;
}

/** `checkBudget` (the lock first), and what its decision means for this order. */
export async function budgetGate(
  tx: Queryable,
  context: BudgetContext,
  profile: { name: string; budget?: Budget | undefined },
  total: string | null | undefined,
  at: Date,
): Promise<BudgetGate> {
  const decision = await checkBudget(tx, context, profile, total, at);
  const over = decision?.over ? decision : null;
  return {
    decision,
    refused: over?.onExceed === "refuse" ? { lines: [refusalMessage(over, context.locale)] } : null,
    overBudget: over?.onExceed === "approve" ? overBudgetRule(over, context.locale) : null,
  };
}
