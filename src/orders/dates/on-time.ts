/**
 * The admins' figure on App Home: of this month's deliveries that had a needed-by date, how many arrived on or
 * before it, by profile. "This month" is the calendar month of today where the customer is.
 */
import type { Queryable } from "../../store/db.ts";
import { type OnTimeRow, onTimeByProfile } from "../../store/repositories/order-risk.ts";
import { calendarDateIn } from "./business-days.ts";

export type { OnTimeRow } from "../../store/repositories/order-risk.ts";

export function monthOf(now: Date, timeZone: string): { from: string; to: string } {
  const today = calendarDateIn(now, timeZone);
  const [y, m] = [Number(today.slice(0, 4)), Number(today.slice(5, 7))];
  const next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, "0")}-01`;
  return { from: `${today.slice(0, 7)}-01`, to: next };
}

export function onTimeThisMonth(q: Queryable, now: Date, timeZone = "UTC"): Promise<OnTimeRow[]> {
  const { from, to } = monthOf(now, timeZone);
  return onTimeByProfile(q, from, to);
}

/** "Acme EU 3 of 4 (75%)" */
export function onTimeWords(row: OnTimeRow): string {
  const rate = row.delivered === 0 ? 0 : Math.round((100 * row.onTime) / row.delivered);
  return `${row.profile} ${row.onTime} of ${row.delivered} (${rate}%)`;
}
