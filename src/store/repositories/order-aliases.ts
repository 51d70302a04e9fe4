/**
 * Which order a supplier correlation id belongs to: the order whose own `correlation_id` it is, or else the
 * order an admin attached it to (`order_aliases`, recorded by "Attach to order…" on an orphan alert). Every
 * place that matches events to orders follows this rule (src/store/repositories/events.ts,
 * src/webhooks/orphans.ts), so an attached order gets its later events as it gets those of its own id.
 */
import type { Queryable } from "../db.ts";

/**
 * The order of `correlationId` as one SQL expression (its own correlation id first, then an alias), for a
 * correlation id given by the SQL expression `correlationId` (a parameter such as `$2`, or a column).
 */
export function orderOfCorrelationSql(correlationId: string): string {
  return `COALESCE(
      (SELECT id FROM orders WHERE correlation_id = ${correlationId}),
      (SELECT order_id FROM order_aliases WHERE correlation_id = ${correlationId}))`;
}

/** The id of the order `correlationId` belongs to (its own, or attached by an admin), or null. */
export async function findOrderIdByCorrelationId(
  q: Queryable,
  correlationId: string,
): Promise<string | null> {
  const { rows } = await q.query<{ order_id: string | null }>(
    `SELECT ${orderOfCorrelationSql("$1")} AS order_id`,
    [correlationId],
  );
  return rows[0]?.order_id ?? null;
}

export interface NewOrderAlias {
  correlationId: string;
  orderId: string;
  /** The orphan alert whose Attach recorded it. */
  attentionId: string;
  /** The admin's Slack user id. */
  by: string;
}

/**
 * Records that `correlationId` belongs to the order. A plain INSERT: a correlation id already attached to an
 * order (a concurrent attach) is a unique violation that fails the caller's transaction, never a silent re-point.
 */
export async function insertOrderAlias(q: Queryable, alias: NewOrderAlias): Promise<void> {
  await q.query(
    `INSERT INTO order_aliases (correlation_id, order_id, attention_id, created_by) VALUES ($1, $2, $3, $4)`,
    [alias.correlationId, alias.orderId, alias.attentionId, alias.by],
  );
}

/** The correlation ids attached to the order (not its own), oldest first. */
export async function listOrderAliases(q: Queryable, orderId: string): Promise<string[]> {
  const { rows } = await q.query<{ correlation_id: string }>(
    "SELECT correlation_id FROM order_aliases WHERE order_id = $1 ORDER BY created_at, correlation_id",
    [orderId],
  );
  return rows.map((r) => r.correlation_id);
}

/**
 * Undoes what an attach (the orphan alert `attentionId`) recorded for `correlationId`: its alias row, or, when the
 * attach made it the order's own (the order had none), the order's correlation id, back to null. Returns which
 * it undid, or null when neither is there any more.
 */
export async function forgetAttachedCorrelation(
  q: Queryable,
  link: { correlationId: string; orderId: string; attentionId: string; madeOwn: boolean },
): Promise<"alias" | "own" | null> {
  const alias = await q.query(
    "DELETE FROM order_aliases WHERE correlation_id = $1 AND order_id = $2 AND attention_id = $3",
    [link.correlationId, link.orderId, link.attentionId],
  );
  if ((alias.rowCount ?? 0) > 0) return "alias";
  if (!link.madeOwn) return null;
  const own = await q.query(
    "UPDATE orders SET correlation_id = NULL, updated_at = now() WHERE id = $1 AND correlation_id = $2",
    [link.orderId, link.correlationId],
  );
  return (own.rowCount ?? 0) > 0 ? "own" : null;
}
