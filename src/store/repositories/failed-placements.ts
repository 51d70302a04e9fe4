/**
 * Before a failed `place-order` job runs again, its order must be waiting again: the job only places orders that
 * are `queued` (a failed order is "moved on" to it). One conditional statement: an order that was retried,
 * resubmitted or placed meanwhile is left alone, and so is one the supplier refused (that one is fixed and
 * resubmitted in Slack, not retried: the same request would be refused again). `last_error` is kept, so an
 * earlier attempt that may have reached the supplier still turns a DUPLICATE_ORDER answer into "placed".
 */
import type { Queryable } from "../db.ts";

export type RequeueOutcome = "requeued" | "refused_by_supplier" | "not_failed" | "unknown_order";

export async function requeueFailedPlacement(q: Queryable, orderId: string): Promise<RequeueOutcome> {
  const { rows } = await q.query<{ status: string; refused: boolean; requeued: boolean }>(
    `WITH requeued AS (
       UPDATE orders SET status = 'queued', status_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'failed' AND correlation_id IS NULL
          AND COALESCE(last_error ->> 'kind', '') <> 'rejected'
       RETURNING id
     )
     SELECT o.status, COALESCE(o.last_error ->> 'kind', '') = 'rejected' AS refused,
            EXISTS (SELECT 1 FROM requeued) AS requeued
       FROM orders o WHERE o.id = $1`,
    [orderId],
  );
  const row = rows[0];
  if (!row) return "unknown_order";
  if (row.requeued) return "requeued";
  return row.status === "failed" && row.refused ? "refused_by_supplier" : "not_failed";
}
