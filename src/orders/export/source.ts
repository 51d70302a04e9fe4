/**
 * Where an export's orders come from: the store's keyset pages (src/store/repositories/order-export.ts), read as
 * the CSV lines are written. `/order export` in Slack and `order-desk orders export` both read through here, so
 * neither reaches into the store for it and both export the same orders for a month.
 */
import type { Queryable } from "../../store/db.ts";
import { ordersTakenBetween } from "../../store/repositories/order-export.ts";
import type { ExportOrder } from "./columns.ts";
import type { ExportMonth } from "./month.ts";

/** Every order taken in the month (UTC), oldest first, read page by page as the caller consumes them. */
export function ordersOfMonth(store: Queryable, month: ExportMonth): AsyncGenerator<ExportOrder> {
  return ordersTakenBetween(store, month);
}
