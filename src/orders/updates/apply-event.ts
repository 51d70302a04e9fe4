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
import type { Order } from "../model/order.ts";
import { applyDates } from "./apply-dates.ts";
import { parseStoredEvent } from "./stored-event.ts";
import { foldTracking, readTracking, trackingInfoOf } from "./tracking.ts";

export interface ApplyOptions {
  /** The customer's time zone: the calendar day of a delivery, of an update (default UTC). */
  timeZone?: string | undefined;
  /** The event completed the order's delivery (called once per order, after its transaction committed). */
  onDelivered?: ((order: Order) => void) | undefined;
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
    const outcome = await store.transaction(async (tx) => {
      const applied = await applySupplierStatus(tx, orderId, status, event.occurredAt);
      if (!applied || status !== "delivered") return { applied: applied !== null, delivered: null };
      const deliveredOn = calendarDateIn(event.occurredAt, timeZone);
      return {
        applied: true,
        delivered: await applyDates(tx, orderId, { deliveredOn, at: event.occurredAt }),
      };
    });
    if (outcome.delivered) options.onDelivered?.(outcome.delivered);
    return outcome.applied;
  }
  if (parsed.kind === "shipping_updated") {
    const info = trackingInfoOf(parsed.event);
    const outcome = await store.transaction(async (tx) => {
      const order = await getOrderForUpdate(tx, orderId);
      const next = order && foldTracking(readTracking(order.tracking), info);
      if (!next) return { applied: false, delivered: null };
      await setTracking(tx, orderId, next);
      const delivered = await applyDates(tx, orderId, {
        estimate: supplierEstimate(next, timeZone),
        deliveredOn: parcelsDeliveredOn(next, timeZone),
        at: event.occurredAt,
      });
      return { applied: true, delivered };
    });
    if (outcome.delivered) options.onDelivered?.(outcome.delivered);
    return outcome.applied;
  }
  return false;
}
