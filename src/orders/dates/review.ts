/**
 * What a supplier event means for an order's dates, decided without the database: the supplier's estimate of
 * delivery, whether the order is at risk of missing its needed-by date, and how late a delivery was.
 *
 * Our answer for estimates: the order arrives with its last parcel, so its estimate is the latest of its parcels'
 * newest estimates. An estimate dated before the day of the update that carries it is stale (a supplier
 * re-sending an old value) and ignored; an update without one leaves the expectation as it was.
 */
import type { TrackingDoc } from "../updates/tracking.ts";
import { calendarDateIn, calendarDaysBetween, type IsoDate } from "./business-days.ts";
import { isLate } from "./lead-time.ts";

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function supplierEstimate(doc: TrackingDoc, timeZone: string): IsoDate | null {
  let latest: IsoDate | null = null;
  for (const parcel of Object.values(doc.parcels)) {
    const estimate = parcel.estimatedDelivery;
    if (!estimate || !ISO_DATE.test(estimate)) continue;
    const day = calendarDateIn(new Date(parcel.occurredAt), timeZone);
    if (estimate < day) continue;
    if (latest === null || estimate > latest) latest = estimate;
  }
  return latest;
}

/** Every parcel of the order delivered: the day the last one was (null while one is still under way). */
export function parcelsDeliveredOn(doc: TrackingDoc, timeZone: string): IsoDate | null {
  const parcels = Object.values(doc.parcels);
  const of = doc.latest.parcel.of;
  if (parcels.length < of || !parcels.every((p) => p.status === "delivered")) return null;
  const last = Math.max(...parcels.map((p) => Date.parse(p.occurredAt)));
  return calendarDateIn(new Date(last), timeZone);
}

export type RiskChange = "at_risk" | "back_on_track" | null;

/** The change an expectation makes to an order that was (or was not) at risk. */
export function riskChange(
  wasAtRisk: boolean,
  expected: IsoDate | null,
  neededBy: IsoDate | null,
): RiskChange {
  const late = isLate(expected, neededBy);
  if (late && !wasAtRisk) return "at_risk";
  if (!late && wasAtRisk && expected !== null) return "back_on_track";
  return null;
}

/** Calendar days a delivery came after the needed-by date (0 when in time); null without a needed-by date. */
export function lateDaysOf(neededBy: IsoDate | null, deliveredOn: IsoDate): number | null {
  if (neededBy === null) return null;
  return Math.max(0, calendarDaysBetween(neededBy, deliveredOn));
}
