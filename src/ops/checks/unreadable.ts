/**
 * Unreadable deliveries: signed bodies from the supplier that the customer file's `supplierEvents` mapping could not
 * read, kept until it is corrected and they are reprocessed. One is a mapping to correct, never normal.
 */
import type { Queryable } from "../../store/db.ts";
import { type CheckOutcome, ok, warn } from "../check.ts";

export async function checkUnreadableEvents(q: Queryable): Promise<CheckOutcome> {
  const { rows } = await q.query<{ count: number; oldest: Date | null; shapes: number }>(
    `SELECT count(*)::int AS count, min(received_at) AS oldest, count(DISTINCT shape_key)::int AS shapes
     FROM unreadable_events WHERE resolved_at IS NULL`,
  );
  const row = rows[0];
  if (!row || row.count === 0) return ok("every signed delivery from the supplier was read as an event");
  const { rows: first } = await q.query<{ reason: string }>(
    "SELECT reason FROM unreadable_events WHERE resolved_at IS NULL ORDER BY received_at, id LIMIT 1",
  );
  const oldest = row.oldest ? new Date(row.oldest).toISOString() : "?";
  return warn(
    `${row.count} signed deliver${row.count === 1 ? "y" : "ies"} since ${oldest} could not be read as events ` +
      `(${row.shapes} shape${row.shapes === 1 ? "" : "s"}; the first: ${(first[0]?.reason ?? "").slice(0, 200)}): ` +
      'correct supplierEvents, try one with `order-desk events check`, restart, then Reprocess (docs/webhooks.md, "Connecting your supplier\'s events")',
  );
}
