/**
 * Expected delivery before the supplier says anything: the day the order is placed plus the longest lead time
 * that applies to it (an item that takes longer than its country wins; the country's beats the default), in
 * business days with the customer's holidays skipped. An order of the express type takes the express lead time.
 * Without `leadTimes` in the customer file there is no estimate until the supplier gives one.
 */
import type { ExpressOrderType, LeadTimes } from "../../config/dates-schema.ts";
import type { CreateOrderRequest } from "../../supplier/schema.ts";
import { addWorkingDays, calendarDateIn, type IsoDate } from "./business-days.ts";

/** What the customer file says about dates (a part of the customer config). */
export interface DatesConfig {
  leadTimes?: LeadTimes | undefined;
  holidays: readonly IsoDate[];
  expressOrderType?: ExpressOrderType | undefined;
  timeZone?: string | undefined;
}

export type LeadTimeReason =
  | { kind: "item"; itemNumber: string }
  | { kind: "country"; country: string }
  | { kind: "default" }
  | { kind: "express"; type: string };

export interface LeadTime {
  days: number;
  reason: LeadTimeReason;
}

export interface Expectation {
  /** The expected delivery date. */
  date: IsoDate;
  lead: LeadTime;
}

type Shipped = Pick<CreateOrderRequest, "type" | "orderLines"> & {
  shipping: Pick<CreateOrderRequest["shipping"], "countryIso2">;
};

/** The longest lead time that applies; on a tie the most specific reason (item, then country) is named. */
export function leadTimeFor(config: DatesConfig, request: Shipped): LeadTime | null {
  const express = config.expressOrderType;
  if (express && request.type === express.type) {
    return { days: express.leadTimeDays, reason: { kind: "express", type: express.type } };
  }
  const lead = config.leadTimes;
  if (!lead) return null;
  let best: LeadTime = { days: lead.default, reason: { kind: "default" } };
  const country = request.shipping.countryIso2.trim().toUpperCase();
  const byCountry = lead.countries[country];
  if (byCountry !== undefined && byCountry >= best.days)
    best = { days: byCountry, reason: { kind: "country", country } };
  for (const line of request.orderLines) {
    const byItem = lead.items[line.itemNumber];
    if (byItem !== undefined && byItem >= best.days && (byItem > best.days || best.reason.kind !== "item")) {
      best = { days: byItem, reason: { kind: "item", itemNumber: line.itemNumber } };
    }
  }
  return best;
}

/** Today's date where the customer is (UTC unless the customer file names a time zone). */
export function customerToday(config: Pick<DatesConfig, "timeZone">, now: Date): IsoDate {
  return calendarDateIn(now, config.timeZone ?? "UTC");
}

/** The expected delivery of `request` if placed at `placedAt`; null without lead times. */
export function expectDelivery(config: DatesConfig, request: Shipped, placedAt: Date): Expectation | null {
  const lead = leadTimeFor(config, request);
  if (!lead) return null;
  return { date: addWorkingDays(customerToday(config, placedAt), lead.days, config.holidays), lead };
}

/** The same request sent as the express type, when the customer file names one; null otherwise. */
export function expectExpress(config: DatesConfig, request: Shipped, placedAt: Date): Expectation | null {
  const express = config.expressOrderType;
  if (!express || request.type === express.type) return null;
  return expectDelivery(config, { ...request, type: express.type }, placedAt);
}

/** Needed by a date before the expected delivery: at risk. Delivery on the needed-by date itself is on time. */
export function isLate(expected: IsoDate | null, neededBy: IsoDate | null): boolean {
  return expected !== null && neededBy !== null && expected > neededBy;
}
