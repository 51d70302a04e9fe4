/**
 * Budgets in the store (migration 019): the per-(profile, month) row every accepting transaction locks, the month's
 * spend summed in SQL as `numeric` (amounts travel as decimal strings, never as binary floating point), and the
 * 80 % / 100 % alerts recorded once per month. Like orders.ts, every function runs one statement on the `Queryable`
 * it is given; the caller composes them in one transaction.
 */
import type { Queryable } from "../db.ts";

/**
 * Takes the profile's month row, creating it if needed, and holds its lock until the transaction ends: an upsert
 * whose conflict branch updates the row locks it as SELECT … FOR UPDATE would, and a concurrent first insert of the
 * same row waits for this one instead of failing.
 */
export async function lockBudgetMonth(q: Queryable, profile: string, month: string): Promise<void> {
  await q.query(
    `INSERT INTO budget_months (profile, month) VALUES ($1, $2)
     ON CONFLICT (profile, month) DO UPDATE SET profile = EXCLUDED.profile`,
    [profile, month],
  );
}

export interface SpendCheck {
  /** The month's spend before the order. */
  spent: string;
  /** With the order. */
  after: string;
  /** What is left of the budget before the order (never below 0). */
  left: string;
  /** The order would take the month over the budget. */
  over: boolean;
}

/**
 * The month's spend of the profile (the totals of its orders in `countingStates`) and what `total` would make of
 * it against `monthly`. Run after `lockBudgetMonth` in the same transaction: read committed takes a new snapshot
 * per statement, so it sees every order the previous holder of the lock committed.
 */
export async function checkSpend(
  q: Queryable,
  input: {
    profile: string;
    month: string;
    total: string;
    monthly: string;
    countingStates: readonly string[];
  },
): Promise<SpendCheck> {
  const { rows } = await q.query(
    `SELECT s.spent::text AS spent, (s.spent + $3::numeric)::text AS after,
       GREATEST($4::numeric - s.spent, 0)::text AS left, (s.spent + $3::numeric) > $4::numeric AS over
     FROM (SELECT COALESCE(sum(total), 0) AS spent FROM orders
           WHERE profile = $1 AND budget_month = $2 AND status = ANY($5::text[])) s`,
    [input.profile, input.month, input.total, input.monthly, [...input.countingStates]],
  );
  const row = rows[0] as { spent: string; after: string; left: string; over: boolean };
  return { spent: row.spent, after: row.after, left: row.left, over: row.over };
}

/** The month an order with a total counts in (set in the transaction that inserts it). */
export async function setBudgetMonth(q: Queryable, orderId: string, month: string): Promise<void> {
  await q.query("UPDATE orders SET budget_month = $2 WHERE id = $1", [orderId, month]);
}

/**
 * Records that the month's spend (`spent`, with the order just accepted) has reached 80 % or 100 % of `monthly`,
 * for each threshold not recorded before, and says which were recorded now: the caller tells the admins of those,
 * once per month. Needs the row's lock (`lockBudgetMonth`).
 */
export async function recordThresholds(
  q: Queryable,
  input: { profile: string; month: string; spent: string; monthly: string; at: Date },
): Promise<{ crossed80: boolean; crossed100: boolean }> {
  const { rows } = await q.query(
    `UPDATE budget_months b SET
       alerted_80_at = CASE WHEN o.alerted_80_at IS NULL AND $3::numeric >= $4::numeric * 0.8
         THEN $5 ELSE o.alerted_80_at END,
       alerted_100_at = CASE WHEN o.alerted_100_at IS NULL AND $3::numeric >= $4::numeric
         THEN $5 ELSE o.alerted_100_at END
     FROM budget_months o
     WHERE b.profile = $1 AND b.month = $2 AND o.profile = b.profile AND o.month = b.month
     RETURNING o.alerted_80_at IS NULL AND b.alerted_80_at IS NOT NULL AS crossed80,
       o.alerted_100_at IS NULL AND b.alerted_100_at IS NOT NULL AS crossed100`,
    [input.profile, input.month, input.spent, input.monthly, input.at],
  );
  const row = rows[0] as { crossed80: boolean; crossed100: boolean } | undefined;
  return { crossed80: row?.crossed80 ?? false, crossed100: row?.crossed100 ?? false };
}

export interface MonthSpend {
  profile: string;
  /** The month's spend (decimal string). */
  spent: string;
  /** Of `monthly`, in whole percent (rounded down), computed in SQL. */
  percent: number;
}

/** Each profile's spend in its month against its budget (App Home, metrics), as decimal strings. */
export async function monthSpends(
  q: Queryable,
  budgets: readonly { profile: string; month: string; monthly: string }[],
  countingStates: readonly string[],
): Promise<MonthSpend[]> {
  if (budgets.length === 0) return [];
  const { rows } = await q.query(
    `SELECT m.profile, s.spent::text AS spent, floor(s.spent * 100 / m.monthly)::int AS percent
     FROM unnest($1::text[], $2::text[], $3::numeric[]) WITH ORDINALITY AS m(profile, month, monthly, n)
     CROSS JOIN LATERAL (
       SELECT COALESCE(sum(o.total), 0) AS spent FROM orders o
       WHERE o.profile = m.profile AND o.budget_month = m.month AND o.status = ANY($4::text[])
     ) s
     ORDER BY m.n`,
    [
      budgets.map((b) => b.profile),
      budgets.map((b) => b.month),
      budgets.map((b) => b.monthly),
      [...countingStates],
    ],
  );
  return rows.map((r) => ({ profile: r.profile, spent: r.spent, percent: r.percent }));
}
