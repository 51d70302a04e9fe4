/**
 * Budget metrics: each budgeted profile's month-to-date spend and its monthly budget, read from the store at each
 * scrape (src/orders/budget/spend.ts). Prometheus keeps every sample as a float: the exact decimal amounts become
 * numbers only here, for dashboards and alerts, never for a decision.
 */
import { Gauge, type Registry } from "prom-client";
import type { ProfileSpend } from "./orders/budget/spend.ts";

export function registerBudgetMetrics(
  registry: Registry,
  read: () => Promise<readonly ProfileSpend[]>,
): { spend: Gauge<"profile" | "currency">; budget: Gauge<"profile" | "currency"> } {
  let last: Promise<readonly ProfileSpend[]> | null = null;
  // One read per scrape for both gauges: the first collect starts it, the second reuses it.
  const current = () => {
    last ??= read()
      .catch(() => [])
      .finally(() => setImmediate(() => (last = null)));
    return last;
  };
  const budget = new Gauge({
    name: "order_desk_budget_monthly",
    help: "Each budgeted profile's monthly budget, in the customer file's currency.",
    labelNames: ["profile", "currency"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await current())
        this.set({ profile: s.profile, currency: s.currency }, Number(s.monthly));
    },
  });
  const spend = new Gauge({
    name: "order_desk_budget_spend",
    help: "Each budgeted profile's spend this calendar month (orders placed or waiting for approval), in the customer file's currency.",
    labelNames: ["profile", "currency"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await current())
        this.set({ profile: s.profile, currency: s.currency }, Number(s.spent));
    },
  });
  return { spend, budget };
}
