/**
 * Month-to-date spend against budget for every profile with a budget, in the file's order: what admins see in App
 * Home and what `/metrics` exposes. Read when asked (no cache): one statement over the orders' month index.
 */
import type { Budget } from "../../config/budget-schema.ts";
import type { Queryable } from "../../store/db.ts";
import { monthSpends } from "../../store/repositories/budgets.ts";
import { COUNTING_STATES } from "./counting.ts";
import { budgetMonth } from "./month.ts";

export interface ProfileSpend {
  profile: string;
  /** `YYYY-MM` in the customer's time zone. */
  month: string;
  spent: string;
  monthly: string;
  currency: string;
  onExceed: Budget["onExceed"];
  /** Whole percent of the budget spent (rounded down). */
  percent: number;
}

export interface SpendConfig {
  currency?: string | undefined;
  timeZone?: string | undefined;
  profiles: readonly { name: string; budget?: Budget | undefined }[];
}

export async function spendThisMonth(q: Queryable, config: SpendConfig, at: Date): Promise<ProfileSpend[]> {
  const currency = config.currency;
  if (currency === undefined) return [];
  const month = budgetMonth(at, config.timeZone).label;
  const budgeted = config.profiles.flatMap((p) => (p.budget ? [{ name: p.name, budget: p.budget }] : []));
  const spends = await monthSpends(
    q,
    budgeted.map((p) => ({ profile: p.name, month, monthly: p.budget.monthly })),
    COUNTING_STATES,
  );
  return budgeted.map((p, i) => ({
    profile: p.name,
    month,
    spent: spends[i]?.spent ?? "0",
    monthly: p.budget.monthly,
    currency,
    onExceed: p.budget.onExceed,
    percent: spends[i]?.percent ?? 0,
  }));
}
