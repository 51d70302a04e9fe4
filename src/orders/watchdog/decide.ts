/**
 * The watchdog's rule, as a pure function of the order, the time and the customer's settings: which of the three
 * stall conditions hold, which are over (the supplier's relevant event came), and when the next one could start
 * to hold. The jobs (./jobs.ts) run it when a check is due and act on the answer; nothing here reads a clock.
 *
 *   not_accepted   placed, but no supplier event at all `acceptedWithinHours` after placement
 *   not_shipped    not shipped `shippedWithinDays` business days after the expected ship date
 *                  (expected delivery − 1 business day)
 *   not_delivered  shipped, but not delivered `deliveredWithinDays` business days after the latest estimated
 *                  delivery
 *
 * A day's grace ends at the end of that day in the customer's time zone: "1 business day after Monday" is overdue
 * from Wednesday 00:00.
 */
import type { WatchdogConfig } from "../../config/watchdog-schema.ts";
import { SUPPLIER_ORDER_STATES } from "../../supplier/events.ts";
import type { OrderStatus } from "../model/status.ts";
import { addBusinessDays, nextDayStart } from "./business-days.ts";

export const WATCHDOG_CONDITIONS = ["not_accepted", "not_shipped", "not_delivered"] as const;
export type WatchdogCondition = (typeof WATCHDOG_CONDITIONS)[number];

export interface WatchdogOrder {
  status: OrderStatus;
  /**
   * Whether any supplier event came for it (a status it reported, a shipping update): placement alone sets
   * `received` without one.
   */
  heardFromSupplier: boolean;
  /** When the supplier accepted it, by the app's clock. */
  placedAt: Date;
  /** Our best estimate of delivery (YYYY-MM-DD): lead times, then the supplier's latest estimate. */
  expectedDelivery: string | null;
}

export interface WatchdogRules extends WatchdogConfig {
  /** Days (YYYY-MM-DD) that are not business days, besides weekends. */
  holidays: readonly string[];
  /** The customer's IANA time zone (default UTC): where a day ends. */
  timeZone?: string | undefined;
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

/** Which conditions the order's state puts behind it for good. */
export function conditionsOver(
  order: Pick<WatchdogOrder, "status" | "heardFromSupplier">,
): WatchdogCondition[] {
  const { status } = order;
  // Cancelled: nothing more is expected of the supplier.
  if (status === "cancelled") return [...WATCHDOG_CONDITIONS];
  // Not placed (any more): nothing is expected of the supplier yet.
  if (!SUPPLIER_STATES.has(status)) return [];
  const over: WatchdogCondition[] = [];
  if (order.heardFromSupplier || status !== "received") over.push("not_accepted");
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
      since: nextDayStart(addBusinessDays(shipDate, rules.shippedWithinDays, rules.holidays), rules.timeZone),
      expected: shipDate,
    },
    not_delivered: {
      condition: "not_delivered",
      since: nextDayStart(
        addBusinessDays(order.expectedDelivery, rules.deliveredWithinDays, rules.holidays),
        rules.timeZone,
      ),
      expected: order.expectedDelivery,
    },
  };
}

export function checkWatchdog(order: WatchdogOrder, now: Date, rules: WatchdogRules): WatchdogVerdict {
  const over = conditionsOver(order);
  // Not with the supplier (failed, waiting for approval…): nothing to watch.
  if (!SUPPLIER_STATES.has(order.status)) return { holding: [], over, nextCheckAt: null };
  const due = deadlines(order, rules);
  const holding: Overdue[] = [];
  let nextCheckAt: Date | null = null;
  for (const condition of WATCHDOG_CONDITIONS) {
    const deadline = due[condition];
    if (deadline === null || over.includes(condition)) continue;
    // Not delivered is watched once shipped: before that, "not shipped" says it.
    if (condition === "not_delivered" && !over.includes("not_shipped")) continue;
    if (deadline.since.getTime() <= now.getTime()) holding.push(deadline);
    else if (nextCheckAt === null || deadline.since < nextCheckAt) nextCheckAt = deadline.since;
  }
  return { holding, over, nextCheckAt };
}

/** The rules of the customer file: its `watchdog` settings, holidays and time zone. */
export function watchdogRulesOf(config: {
  watchdog: WatchdogConfig;
  holidays: readonly string[];
  timeZone?: string | undefined;
}): WatchdogRules {
  return { ...config.watchdog, holidays: config.holidays, timeZone: config.timeZone };
}
