/**
 * The watchdog's records (migration 018): when each order was accepted, and each condition reported for it. A
 * report is inserted once per order and condition, ever (`ON CONFLICT DO NOTHING`): the insert that wins is the
 * one whose transaction enqueues the report's job.
 */
import type { Overdue, WatchdogCondition } from "../../orders/watchdog/decide.ts";
import type { Queryable, Row } from "../db.ts";

export interface WatchdogReport extends Overdue {
  orderId: string;
  reportedAt: Date;
  replyAttemptedAt: Date | null;
  replyTs: string | null;
  attentionItemId: string | null;
  clearedAt: Date | null;
}

function toReport(row: Row): WatchdogReport {
  return {
    orderId: row.order_id,
    condition: row.condition,
    since: row.overdue_since,
    expected: row.expected,
    reportedAt: row.reported_at,
    replyAttemptedAt: row.reply_attempted_at,
    replyTs: row.reply_ts,
    attentionItemId: row.attention_item_id,
    clearedAt: row.cleared_at,
  };
}

/** Records when the order was accepted; the first record stands (a repeated placement run changes nothing). */
export async function recordPlacedAt(q: Queryable, orderId: string, placedAt: Date): Promise<Date> {
  const { rows } = await q.query(
    `INSERT INTO watchdog_orders (order_id, placed_at) VALUES ($1, $2)
     ON CONFLICT (order_id) DO UPDATE SET placed_at = watchdog_orders.placed_at RETURNING placed_at`,
    [orderId, placedAt],
  );
  return rows[0]?.placed_at as Date;
}

export async function placedAtOf(q: Queryable, orderId: string): Promise<Date | null> {
  const { rows } = await q.query("SELECT placed_at FROM watchdog_orders WHERE order_id = $1", [orderId]);
  return (rows[0]?.placed_at as Date | undefined) ?? null;
}

/** Inserts the report unless the condition was reported for the order before; null then. */
export async function insertReport(
  q: Queryable,
  orderId: string,
  overdue: Overdue,
  reportedAt: Date,
): Promise<WatchdogReport | null> {
  const { rows } = await q.query(
    `INSERT INTO watchdog_reports (order_id, condition, overdue_since, expected, reported_at)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (order_id, condition) DO NOTHING RETURNING *`,
    [orderId, overdue.condition, overdue.since, overdue.expected, reportedAt],
  );
  return rows[0] ? toReport(rows[0]) : null;
}

export async function listReports(q: Queryable, orderId: string): Promise<WatchdogReport[]> {
  const { rows } = await q.query(
    "SELECT * FROM watchdog_reports WHERE order_id = $1 ORDER BY reported_at, condition",
    [orderId],
  );
  return rows.map(toReport);
}

/** The report, locked until the transaction ends (its job and a clearing check never act on it at once). */
export async function getReportForUpdate(
  q: Queryable,
  orderId: string,
  condition: WatchdogCondition,
): Promise<WatchdogReport | null> {
  const { rows } = await q.query(
    "SELECT * FROM watchdog_reports WHERE order_id = $1 AND condition = $2 FOR UPDATE",
    [orderId, condition],
  );
  return rows[0] ? toReport(rows[0]) : null;
}

export async function markReplyAttempted(
  q: Queryable,
  orderId: string,
  condition: WatchdogCondition,
): Promise<void> {
  await q.query(
    "UPDATE watchdog_reports SET reply_attempted_at = now() WHERE order_id = $1 AND condition = $2",
    [orderId, condition],
  );
}

export async function setReplyTs(
  q: Queryable,
  orderId: string,
  condition: WatchdogCondition,
  ts: string,
): Promise<void> {
  await q.query("UPDATE watchdog_reports SET reply_ts = $3 WHERE order_id = $1 AND condition = $2", [
    orderId,
    condition,
    ts,
  ]);
}

export async function setReportItem(
  q: Queryable,
  orderId: string,
  condition: WatchdogCondition,
  itemId: string,
): Promise<void> {
  await q.query("UPDATE watchdog_reports SET attention_item_id = $3 WHERE order_id = $1 AND condition = $2", [
    orderId,
    condition,
    itemId,
  ]);
}

/** Clears the report (the supplier's event came); false when it was cleared already. */
export async function clearReport(
  q: Queryable,
  orderId: string,
  condition: WatchdogCondition,
  at: Date,
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE watchdog_reports SET cleared_at = $3
     WHERE order_id = $1 AND condition = $2 AND cleared_at IS NULL`,
    [orderId, condition, at],
  );
  return (rowCount ?? 0) > 0;
}
