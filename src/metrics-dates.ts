/**
 * Needed-by metrics: orders at risk of missing their needed-by date, how many days after it late deliveries came,
 * and how many days early or late every delivery of an order with one came, by profile. Counted where each change is told (once per change, orders/updates/
 * date-notices.ts), so retries and redeliveries do not count twice.
 */
import { Counter, Histogram, type Registry } from "prom-client";
import { calendarDaysBetween } from "./orders/dates/business-days.ts";
import type { Order } from "./orders/model/order.ts";
import type { DateNotice } from "./store/repositories/order-risk.ts";

export interface DateMetrics {
  atRiskTotal: Counter<"profile">;
  daysLate: Histogram<"profile">;
  daysFromNeededBy: Histogram<"profile">;
}

export function createDateMetrics(registers: Registry[]): DateMetrics {
  return {
    atRiskTotal: new Counter({
      name: "order_desk_orders_at_risk_total",
      help: "Orders at risk of missing their needed-by date (placed at risk, or an estimate that slipped), by profile.",
      labelNames: ["profile"],
      registers,
    }),
    daysLate: new Histogram({
      name: "order_desk_delivery_days_late",
      help: "Days after the needed-by date that late deliveries arrived, by profile.",
      labelNames: ["profile"],
      buckets: [1, 2, 3, 5, 7, 10, 14, 21, 30],
      registers,
    }),
    daysFromNeededBy: new Histogram({
      name: "order_desk_delivery_days_from_needed_by",
      help: "Calendar days from the needed-by date to the delivery, by profile: negative early, 0 on the day, positive late.",
      labelNames: ["profile"],
      buckets: [-30, -14, -7, -5, -3, -2, -1, 0, 1, 2, 3, 5, 7, 14, 30],
      registers,
    }),
  };
}

/** Counts a date notice as it is told (once per change): an order gone at risk, a late delivery's days. */
export function countDateNotice(metrics: DateMetrics, order: Order, notice: DateNotice): void {
  if (notice.kind === "at_risk") metrics.atRiskTotal.inc({ profile: order.profile });
  if (notice.kind === "delivered_late" && notice.lateDays) {
    metrics.daysLate.observe({ profile: order.profile }, notice.lateDays);
  }
}

/** Counts a delivery of an order with a needed-by date (once per order): how many days early or late it came. */
export function countDelivery(metrics: DateMetrics, order: Order): void {
  if (!order.neededBy || !order.deliveredOn) return;
  const days = calendarDaysBetween(order.neededBy, order.deliveredOn);
  metrics.daysFromNeededBy.observe({ profile: order.profile }, days);
}
