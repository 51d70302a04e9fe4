/**
 * A month's orders for the CSV export, oldest first, in keyset pages of (created_at, id): each page is one short
 * query on an index (migration 008), nothing is held open between pages, and a month of many thousand orders is
 * never in memory at once. Orders taken while the export runs may or may not be in it; none appears twice.
 *
 * `correlationId` is the order's own, then those an admin attached to it (order_aliases), separated by spaces,
 * since the supplier's invoices for such an order carry the attached one.
 *
 * `placedAt` is the supplier's first event for the order under its own correlation id (events of another one that an
 * admin attached to it, orphans that may be older than the order, do not count), or, while none has come, the time
 * the placement was recorded (the status then is still `received`). `deliveredAt` is the supplier's `delivered` status event.
 */
import type { ExportOrder } from "../../orders/export/columns.ts";
import type { Queryable, Row } from "../db.ts";

export const EXPORT_PAGE_SIZE = 500;

const PAGE = `
  SELECT o.id, o.external_document_number, o.customer_reference, o.profile, o.requested_by,
         NULLIF(concat_ws(' ', o.correlation_id,
           (SELECT string_agg(a.correlation_id, ' ' ORDER BY a.created_at, a.correlation_id)
              FROM order_aliases a WHERE a.order_id = o.id)), '') AS correlation_id,
         o.status, o.created_at, o.request -> 'shipping' AS shipping, o.request -> 'orderLines' AS order_lines,
         o.tracking, o.created_at::text AS cursor_at, o.needed_by::text AS needed_by,
         o.expected_delivery::text AS expected_delivery, o.late_days,
         COALESCE(
           (SELECT min(e.occurred_at) FROM supplier_events e
             WHERE e.order_id = o.id AND e.correlation_id = o.correlation_id),
           CASE WHEN o.correlation_id IS NOT NULL AND o.status = 'received' THEN o.status_at END
         ) AS placed_at,
         COALESCE(
           (SELECT min(e.occurred_at) FROM supplier_events e
             WHERE e.order_id = o.id AND e.type = 'order.status_changed'
               AND e.payload -> 'data' ->> 'status' = 'delivered'),
           CASE WHEN o.status = 'delivered' THEN o.status_occurred_at END
         ) AS delivered_at
    FROM orders o
   WHERE o.created_at >= $1 AND o.created_at < $2
     AND (o.created_at, o.id) > ($3::timestamptz, $4::text)
   ORDER BY o.created_at, o.id
   LIMIT $5`;

function toExportOrder(row: Row): ExportOrder {
  return {
    externalDocumentNumber: row.external_document_number,
    correlationId: row.correlation_id,
    ticket: row.customer_reference,
    profile: row.profile,
    requestedBy: row.requested_by,
    status: row.status,
    createdAt: new Date(row.created_at),
    placedAt: row.placed_at ? new Date(row.placed_at) : null,
    deliveredAt: row.delivered_at ? new Date(row.delivered_at) : null,
    shipping: row.shipping,
    orderLines: row.order_lines,
    tracking: row.tracking,
    neededBy: row.needed_by ?? null,
    expectedDelivery: row.expected_delivery ?? null,
    lateDays: row.late_days ?? null,
  };
}

/** Every order taken in [start, end), oldest first, read page by page as the caller consumes them. */
export async function* ordersTakenBetween(
  q: Queryable,
  range: { start: Date; end: Date },
  pageSize: number = EXPORT_PAGE_SIZE,
): AsyncGenerator<ExportOrder> {
  // Before any order of the range: every id sorts after "". The cursor keeps the database's own text of
  // created_at (microseconds), which a JavaScript Date (milliseconds) would round and so repeat a row.
  let after: { createdAt: string; id: string } = { createdAt: range.start.toISOString(), id: "" };
  for (;;) {
    const { rows } = await q.query(PAGE, [range.start, range.end, after.createdAt, after.id, pageSize]);
    for (const row of rows) yield toExportOrder(row);
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1] as Row;
    after = { createdAt: last.cursor_at, id: last.id };
  }
}
