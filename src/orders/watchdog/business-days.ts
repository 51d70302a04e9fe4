/**
 * The watchdog's day arithmetic on calendar dates (YYYY-MM-DD), over the dates domain's business days
 * (../dates/business-days.ts: weekends and the customer's holidays skipped), and when a day is over in the
 * customer's time zone.
 */
import { addWorkingDays, calendarDateIn } from "../dates/business-days.ts";

const DAY = 86_400_000;

/** `date` moved by `days` business days; a negative count goes back (−1: the business day before). */
export function addBusinessDays(date: string, days: number, holidays: readonly string[]): string {
  if (days >= 0) return days === 0 ? date : addWorkingDays(date, days, holidays);
  let at = Date.parse(`${date}T12:00:00Z`);
  for (let left = -days; left > 0; ) {
    at -= DAY;
    const day = new Date(at);
    const iso = day.toISOString().slice(0, 10);
    if (day.getUTCDay() !== 0 && day.getUTCDay() !== 6 && !holidays.includes(iso)) left -= 1;
  }
  return new Date(at).toISOString().slice(0, 10);
}

/** The first instant of the day after `date` in `timeZone` (default UTC): when that day is over there. */
export function nextDayStart(date: string, timeZone = "UTC"): Date {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`) + DAY;
  // The zone's offset at that moment: its wall clock then, read back as if it were UTC, minus the moment.
  const wall = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(midnightUtc));
  const part = (type: string) => Number(wall.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(
    part("year"),
    part("month") - 1,
    part("day"),
    part("hour"),
    part("minute"),
    part("second"),
  );
  const start = new Date(midnightUtc - (asUtc - midnightUtc));
  // Across a change of offset the guess may land an hour off: the day after must have begun, and only just.
  const next = new Date(midnightUtc).toISOString().slice(0, 10);
  return calendarDateIn(start, timeZone) === next ? start : new Date(start.getTime() + 3_600_000);
}
