/**
 * Needed-by metrics: orders whose supplier estimate slipped past their needed-by date, and how many days after it
 * late deliveries came, by profile. Counted where each change is told (once per change, orders/updates/
 * date-notices.ts), so retries and redeliveries do not count twice.
 */
import { Counter, Histogram, type Registry } from "prom-client";
import type { Order } from "./orders/model/order.ts";
import type { DateNotice } from "./store/repositories/order-risk.ts";

export interface DateMetrics {
  atRiskTotal: Counter<"profile">;
  daysLate: Histogram<"profile">;
}

export function createDateMetrics(registers: Registry[]): DateMetrics {
  return {
    atRiskTotal: new Counter({
      name: "order_desk_orders_at_risk_total",
      help: "Orders whose expected delivery slipped past their needed-by date after placement, by profile.",
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
  };
}

/** Counts a date notice as it is told (once per change): an order gone at risk, a late delivery's days. */
export function countDateNotice(metrics: DateMetrics, order: Order, notice: DateNotice): void {
  if (notice.kind === "at_risk") metrics.atRiskTotal.inc({ profile: order.profile });
  if (notice.kind === "delivered_late" && notice.lateDays) {
    metrics.daysLate.observe({ profile: order.profile }, notice.lateDays);
  }
}
