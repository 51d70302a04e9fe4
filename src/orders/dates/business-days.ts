/**
 * Calendar dates (YYYY-MM-DD strings, no time, no zone) and business days: weekends and the customer's holidays
 * are skipped. Pure: the caller passes the instant and the time zone, so nothing here reads the clock.
 */
import { addBusinessDays } from "date-fns/addBusinessDays";
import { addDays } from "date-fns/addDays";
import { differenceInCalendarDays } from "date-fns/differenceInCalendarDays";
import { format } from "date-fns/format";
import { isWeekend } from "date-fns/isWeekend";

/** A calendar date written YYYY-MM-DD. */
export type IsoDate = string;

// date-fns counts in the process's local calendar; a date built from its parts at local midnight and formatted
// back the same way is the same calendar day whatever the process's zone.
function toDate(day: IsoDate): Date {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const date = new Date(2000, 0, 1);
  date.setFullYear(y, m - 1, d);
  return date;
}

function toIso(date: Date): IsoDate {
  return format(date, "yyyy-MM-dd");
}

/** The calendar date of `instant` in `timeZone` (an IANA name). */
export function calendarDateIn(instant: Date, timeZone: string): IsoDate {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year").padStart(4, "0")}-${part("month")}-${part("day")}`;
}

/**
 * `days` business days after `from`, skipping weekends and `holidays`: from Friday, 1 business day is Monday.
 * 0 days is `from` itself, or the next business day when `from` is not one.
 */
export function addWorkingDays(from: IsoDate, days: number, holidays: Iterable<IsoDate> = []): IsoDate {
  const off = new Set(holidays);
  const isOff = (d: Date) => isWeekend(d) || off.has(toIso(d));
  let day = toDate(from);
  if (days === 0) {
    while (isOff(day)) day = addDays(day, 1);
    return toIso(day);
  }
  for (let left = days; left > 0; ) {
    day = addBusinessDays(day, 1);
    if (!off.has(toIso(day))) left--;
  }
  return toIso(day);
}

/** Calendar days from `from` to `to`: positive when `to` is later. */
export function calendarDaysBetween(from: IsoDate, to: IsoDate): number {
  return differenceInCalendarDays(toDate(to), toDate(from));
}

/** "Wed 9 Dec", or "Wed 9 Dec 2027" when the year is not `thisYear`'s. */
export function formatDay(day: IsoDate, thisYear?: IsoDate): string {
  const sameYear = thisYear === undefined || thisYear.slice(0, 4) === day.slice(0, 4);
  return format(toDate(day), sameYear ? "EEE d MMM" : "EEE d MMM yyyy");
}
