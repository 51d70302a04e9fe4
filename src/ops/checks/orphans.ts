/**
 * Orphan events: supplier webhook events whose order is still unknown after `orphanAfterMs`. A few seconds
 * of orphanhood is normal (the event raced the placement response); a lasting one means an order placed
 * outside Order Desk, another deployment's webhook URL, or a lost placement response.
 */
import type { Queryable } from "../../store/db.ts";
import { type CheckOutcome, ok, warn } from "../check.ts";

export async function checkOrphanEvents(
  q: Queryable,
  options: { orphanAfterMs: number; now: Date },
): Promise<CheckOutcome> {
  const before = new Date(options.now.getTime() - options.orphanAfterMs);
  const { rows } = await q.query<{ count: number; oldest: Date | null }>(
    `SELECT count(*)::int AS count, min(received_at) AS oldest
     FROM supplier_events WHERE order_id IS NULL AND received_at < $1`,
    [before],
  );
  const row = rows[0];
  const minutes = Math.round(options.orphanAfterMs / 60_000);
  if (!row || row.count === 0) return ok(`no events without a known order for more than ${minutes} min`);
  const { rows: sample } = await q.query<{ correlation_id: string }>(
    `SELECT DISTINCT correlation_id FROM supplier_events
     WHERE order_id IS NULL AND received_at < $1 ORDER BY correlation_id LIMIT 3`,
    [before],
  );
  const ids = sample.map((r) => r.correlation_id).join(", ");
  const oldest = row.oldest ? new Date(row.oldest).toISOString() : "?";
  return warn(
    `${row.count} event${row.count === 1 ? "" : "s"} without a known order for more than ${minutes} min ` +
      `(oldest received ${oldest}; correlation ids ${ids}${row.count > 3 ? ", …" : ""}): ` +
      `see docs/operations.md, "Orphan events"`,
  );
}
