/**
 * The watchdog's rule, as a pure function of the order, the time and the customer's settings: which of the three
 * stall conditions hold, which are over (the supplier's relevant event came), and when the next one could start
 * to hold. The jobs (./jobs.ts) run it when a check is due and act on the answer; nothing here reads a clock.
 *
 *   not_accepted   placed, but no supplier event at all `acceptedWithinHours` after placement
 *   not_shipped    not shipped `shippedWithinDays` business days after the expected ship date
 *                  (expected delivery − 1 business day)
 *   not_delivered  not delivered `deliveredWithinDays` business days after the latest estimated delivery
 *
 * A day's grace ends at the end of that day (UTC): "1 business day after Monday" is overdue from Wednesday 00:00.
 */
import type { WatchdogConfig } from "../../config/watchdog-schema.ts";
import { SUPPLIER_ORDER_STATES } from "../../supplier/events.ts";
import type { OrderStatus } from "../model/status.ts";
import { addBusinessDays, nextDayStart } from "./business-days.ts";

export const WATCHDOG_CONDITIONS = ["not_accepted", "not_shipped", "not_delivered"] as const;
export type WatchdogCondition = (typeof WATCHDOG_CONDITIONS)[number];

export interface WatchdogOrder {
  status: OrderStatus;
  /** When the supplier accepted it, by the app's clock. */
  placedAt: Date;
  /** Our best estimate of delivery (YYYY-MM-DD): lead times, then the supplier's latest estimate. */
  expectedDelivery: string | null;
}

export interface WatchdogRules extends WatchdogConfig {
  /** Days (YYYY-MM-DD) that are not business days, besides weekends. */
  holidays: readonly string[];
}

export interface Overdue {
  condition: WatchdogCondition;
  /** When it became overdue (the end of its grace). */
  since: Date;
  /** What was expected and when: the placement's acceptance by, the ship date, the delivery date. */
  expected: string;
}

export interface WatchdogVerdict {
  /** The conditions that hold now. */
  holding: Overdue[];
  /** The conditions whose supplier event came: each can never hold again, and a report of it clears. */
  over: WatchdogCondition[];
  /** When a condition not over could next start to hold (after `now`); null when none can. */
  nextCheckAt: Date | null;
}

const SUPPLIER_STATES: ReadonlySet<string> = new Set(SUPPLIER_ORDER_STATES);
const SHIPPED: ReadonlySet<string> = new Set(["partially_shipped", "shipped", "delivered"]);
const HOUR = 3_600_000;

/** Which conditions the order's status puts behind it for good. */
export function conditionsOver(status: OrderStatus): WatchdogCondition[] {
  // Cancelled: nothing more is expected of the supplier.
  if (status === "cancelled") return [...WATCHDOG_CONDITIONS];
  const over: WatchdogCondition[] = [];
  if (SUPPLIER_STATES.has(status)) over.push("not_accepted");
  if (SHIPPED.has(status)) over.push("not_shipped");
  if (status === "delivered") over.push("not_delivered");
  return over;
}

/** When each condition starts to hold, regardless of the status (null: no expectation to measure against). */
export function deadlines(
  order: WatchdogOrder,
  rules: WatchdogRules,
): Record<WatchdogCondition, Overdue | null> {
  const accepted: Overdue = {
    condition: "not_accepted",
    since: new Date(order.placedAt.getTime() + rules.acceptedWithinHours * HOUR),
    expected: order.placedAt.toISOString(),
  };
  if (order.expectedDelivery === null)
    return { not_accepted: accepted, not_shipped: null, not_delivered: null };
  const shipDate = addBusinessDays(order.expectedDelivery, -1, rules.holidays);
  return {
    not_accepted: accepted,
    not_shipped: {
      condition: "not_shipped",
      since: nextDayStart(addBusinessDays(shipDate, rules.shippedWithinDays, rules.holidays)),
      expected: shipDate,
    },
    not_delivered: {
      condition: "not_delivered",
      since: nextDayStart(addBusinessDays(order.expectedDelivery, rules.deliveredWithinDays, rules.holidays)),
      expected: order.expectedDelivery,
    },
  };
}

export function checkWatchdog(order: WatchdogOrder, now: Date, rules: WatchdogRules): WatchdogVerdict {
  const over = conditionsOver(order.status);
  const due = deadlines(order, rules);
  const holding: Overdue[] = [];
  let nextCheckAt: Date | null = null;
  for (const condition of WATCHDOG_CONDITIONS) {
    const deadline = due[condition];
    if (deadline === null || over.includes(condition)) continue;
    if (deadline.since.getTime() <= now.getTime()) holding.push(deadline);
    else if (nextCheckAt === null || deadline.since < nextCheckAt) nextCheckAt = deadline.since;
  }
  return { holding, over, nextCheckAt };
}
