/**
 * Needed-by metrics: orders whose supplier estimate slipped past their needed-by date, and how many days after it
 * late deliveries came, by profile. Counted where each change is told (once per change, orders/updates/
 * date-notices.ts), so retries and redeliveries do not count twice.
 */
import { Counter, Histogram, type Registry } from "prom-client";

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
