/** Finding orders by what people call them: the ticket (`customerReference`) or the order number. */

import type { Order } from "../../orders/model/order.ts";
import type { Queryable } from "../db.ts";
import { mapOrder } from "./orders.ts";

/**
 * The orders of these profiles whose ticket or order number is `reference` (the ticket's upper-case form too:
 * `/order status abc-123` finds ABC-123), newest first, at most `limit`.
 */
export async function findOrdersByReference(
  q: Queryable,
  reference: string,
  profiles: readonly string[],
  limit: number,
): Promise<Order[]> {
  if (profiles.length === 0) return [];
  const { rows } = await q.query(
    `SELECT * FROM orders
      WHERE profile = ANY($3::text[])
        AND (customer_reference IN ($1, $2) OR external_document_number IN ($1, $2))
      ORDER BY created_at DESC, id
      LIMIT $4`,
    [reference, reference.toUpperCase(), [...profiles], limit],
  );
  return rows.map(mapOrder);
}
