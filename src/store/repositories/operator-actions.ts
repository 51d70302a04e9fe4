/**
 * The state changes behind the operators' actions (src/orders/operations/act.ts), each one conditional
 * statement, run inside the action's transaction together with its job insert.
 */
import type { Order } from "../../orders/model/order.ts";
import type { Queryable } from "../db.ts";
import { mapOrder } from "./order-row.ts";

/**
 * "Retry now": a placement that failed for good goes back to `queued`. Null when the order is not failed any
 * more (retried, resubmitted or placed meanwhile) or was refused by the supplier (that one is fixed and
 * resubmitted, not retried). `last_error` is kept: it says whether an earlier attempt may have reached the
 * supplier, so a DUPLICATE_ORDER answer to the retry is read as "placed".
 */
export async function requeueFailedOrder(q: Queryable, orderId: string): Promise<Order | null> {
  const { rows } = await q.query(
    `UPDATE orders SET status = 'queued', status_at = now(), updated_at = now()
     WHERE id = $1 AND status = 'failed' AND correlation_id IS NULL
       AND COALESCE(last_error->>'kind', '') <> 'rejected'
     RETURNING *`,
    [orderId],
  );
  return rows[0] ? mapOrder(rows[0]) : null;
}

/**
 * "Retry posting": clears the posting error of the order's unposted events (so a new failure is reported
 * again) and returns their ids, oldest first; none when everything was posted meanwhile.
 */
export async function clearPostErrors(q: Queryable, orderId: string): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `WITH cleared AS (
       UPDATE supplier_events SET post_error = NULL
       WHERE order_id = $1 AND posted_at IS NULL
       RETURNING id, occurred_at
     )
     SELECT id FROM cleared ORDER BY occurred_at, id`,
    [orderId],
  );
  return rows.map((r) => r.id);
}
