/**
 * Budgets in the store (migration 019): the per-(profile, month) row every accepting transaction locks, the month's
 * spend summed in SQL as `numeric` (amounts travel as decimal strings, never as binary floating point), and the
 * admins' alerts claimed once per profile, month and kind (migration 021). Like orders.ts, every function runs one statement on the `Queryable`
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

export type BudgetAlertKind = "80" | "100" | "over";

/**
 * Claims the admins' alerts that the month's spend (`spent`, with the order just accepted) has reached against
 * `monthly` (80 %, 100 %) and, when `over` (onExceed: warn placed it over the budget), that one: each is inserted
 * once per profile and month (table budget_alerts), so the caller tells the admins of exactly the alerts claimed
 * now. Run under the row's lock (`lockBudgetMonth`), in the transaction that accepts the order: the claim is
 * committed with the order or not at all.
 */
export async function claimBudgetAlerts(
  q: Queryable,
  input: {
    profile: string;
    month: string;
    spent: string;
    monthly: string;
    over: boolean;
    orderId: string;
    at: Date;
  },
): Promise<BudgetAlertKind[]> {
  const { rows } = await q.query<{ kind: BudgetAlertKind }>(
    `INSERT INTO budget_alerts (profile, month, kind, order_id, claimed_at)
     SELECT $1, $2, r.kind, $6, $7
     FROM (VALUES ('80', $3::numeric >= $4::numeric * 0.8), ('100', $3::numeric >= $4::numeric),
                  ('over', $5::boolean)) AS r(kind, reached)
     WHERE r.reached
     ON CONFLICT (profile, month, kind) DO NOTHING
     RETURNING kind`,
    [input.profile, input.month, input.spent, input.monthly, input.over, input.orderId, input.at],
  );
  return rows.map((r) => r.kind);
}

export interface BudgetAlertKey {
  profile: string;
  month: string;
  kind: BudgetAlertKind;
}

/** The claimed alert of `key`, or (`{ orderId }`) the over-budget alert this order claimed; null if none. */
export async function getBudgetAlert(
  q: Queryable,
  key: BudgetAlertKey | { overBudgetOrderId: string },
): Promise<(BudgetAlertKey & { toldAt: Date | null }) | null> {
  const { rows } = await q.query<BudgetAlertKey & { toldAt: Date | null }>(
    "overBudgetOrderId" in key
      ? `SELECT profile, month, kind, told_at AS "toldAt" FROM budget_alerts WHERE order_id = $1 AND kind = 'over'`
      : `SELECT profile, month, kind, told_at AS "toldAt" FROM budget_alerts
         WHERE profile = $1 AND month = $2 AND kind = $3`,
    "overBudgetOrderId" in key ? [key.overBudgetOrderId] : [key.profile, key.month, key.kind],
  );
  return rows[0] ?? null;
}

/**
 * Records that a claimed alert is about to be posted (before Slack is called); returns when an earlier attempt was
 * recorded (its post may be in Slack with its answer lost: look for it before posting again), or null for the first.
 */
export async function markBudgetAlertAttempted(q: Queryable, key: BudgetAlertKey): Promise<Date | null> {
  const { rows } = await q.query(
    `UPDATE budget_alerts a SET attempted_at = COALESCE(b.before, now())
       FROM (SELECT profile, month, kind, attempted_at AS before FROM budget_alerts
              WHERE profile = $1 AND month = $2 AND kind = $3 FOR UPDATE) b
      WHERE a.profile = b.profile AND a.month = b.month AND a.kind = b.kind RETURNING b.before`,
    [key.profile, key.month, key.kind],
  );
  return (rows[0]?.before as Date | null | undefined) ?? null;
}

/** Records that the admins were told of a claimed alert. */
export async function markBudgetAlertTold(q: Queryable, key: BudgetAlertKey, at: Date): Promise<void> {
  await q.query(
    "UPDATE budget_alerts SET told_at = $4 WHERE profile = $1 AND month = $2 AND kind = $3 AND told_at IS NULL",
    [key.profile, key.month, key.kind, at],
  );
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
