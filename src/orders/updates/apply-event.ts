/**
 * Applies one stored supplier event to its order: the status only forward (`applySupplierStatus`), tracking only
 * when newer (tracking.ts), and in the same transaction what it means for the order's dates (apply-dates.ts).
 * True when the order changed.
 */
import type { Store } from "../../store/db.ts";
import type { StoredEvent } from "../../store/repositories/events.ts";
import { applySupplierStatus, getOrderForUpdate, setTracking } from "../../store/repositories/orders.ts";
import { calendarDateIn } from "../dates/business-days.ts";
import { parcelsDeliveredOn, supplierEstimate } from "../dates/review.ts";
import { applyDates } from "./apply-dates.ts";
import { parseStoredEvent } from "./stored-event.ts";
import { foldTracking, readTracking, trackingInfoOf } from "./tracking.ts";

export interface ApplyOptions {
  /** The customer's time zone: the calendar day of a delivery, of an update (default UTC). */
  timeZone?: string | undefined;
}

export async function applyEvent(
  store: Store,
  orderId: string,
  event: StoredEvent,
  options: ApplyOptions = {},
): Promise<boolean> {
  const timeZone = options.timeZone ?? "UTC";
  const parsed = parseStoredEvent(event);
  if (parsed.kind === "status_changed") {
    const status = parsed.event.data.status;
    return store.transaction(async (tx) => {
      const applied = await applySupplierStatus(tx, orderId, status, event.occurredAt);
      if (applied && status === "delivered") {
        const deliveredOn = calendarDateIn(event.occurredAt, timeZone);
        await applyDates(tx, orderId, { deliveredOn, at: event.occurredAt });
      }
      return applied !== null;
    });
  }
  if (parsed.kind === "shipping_updated") {
    const info = trackingInfoOf(parsed.event);
    return store.transaction(async (tx) => {
      const order = await getOrderForUpdate(tx, orderId);
      const next = order && foldTracking(readTracking(order.tracking), info);
      if (!next) return false;
      await setTracking(tx, orderId, next);
      await applyDates(tx, orderId, {
        estimate: supplierEstimate(next, timeZone),
        deliveredOn: parcelsDeliveredOn(next, timeZone),
        at: event.occurredAt,
      });
      return true;
    });
  }
  return false;
}
