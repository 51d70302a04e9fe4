/**
 * The order's dates in a line under its status: "⚠️ *At risk*: expected Thu 10 Dec, needed by Mon 7 Dec",
 * "Needed by Mon 7 Dec · expected Fri 4 Dec", "Needed by Mon 7 Dec · no estimate until the supplier gives one",
 * "*Delivered 3 days late* (needed by Mon 7 Dec)". Nothing for an order without dates, or one that ended.
 */
import { calendarDateIn, formatDay } from "../../../orders/dates/business-days.ts";
import type { Order } from "../../../orders/model/order.ts";

const ENDED = new Set(["cancelled", "failed", "rejected_by_approver", "approval_expired"]);

type Dated = Pick<Order, "status"> &
  Partial<Pick<Order, "neededBy" | "expectedDelivery" | "expectedDeliverySource" | "atRiskSince">> &
  Partial<Pick<Order, "deliveredOn" | "lateDays">>;

export function orderDatesText(order: Dated, options: { now: Date; timeZone: string }): string | null {
  const today = calendarDateIn(options.now, options.timeZone);
  const day = (d: string) => formatDay(d, today);
  const { neededBy, expectedDelivery } = order;
  if (order.deliveredOn || order.status === "delivered") {
    if (!neededBy) return null;
    const late = order.lateDays ?? 0;
    return late > 0
      ? `⚠️ *Delivered ${late} day${late === 1 ? "" : "s"} late* (needed by ${day(neededBy)})`
      : `Needed by ${day(neededBy)} · delivered in time`;
  }
  if (ENDED.has(order.status)) return null;
  if (!neededBy) {
    return expectedDelivery && order.expectedDeliverySource === "lead_time"
      ? `Expected ${day(expectedDelivery)} (usual lead time)`
      : null;
  }
  if (order.atRiskSince && expectedDelivery) {
    return `⚠️ *At risk*: expected ${day(expectedDelivery)}, needed by ${day(neededBy)}`;
  }
  if (expectedDelivery) return `Needed by ${day(neededBy)} · expected ${day(expectedDelivery)}`;
  return `Needed by ${day(neededBy)} · no estimate until the supplier gives one`;
}
