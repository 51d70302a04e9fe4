/**
 * Business days on calendar dates (YYYY-MM-DD, no time zone): weekends and the customer's holidays are skipped.
 * Dates, not instants, so a month or year end and daylight saving cannot shift a day.
 */
const DAY = 86_400_000;

function toMs(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

function toDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function isBusinessDay(date: string, holidays: readonly string[]): boolean {
  const weekday = new Date(toMs(date)).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !holidays.includes(date);
}

/** `date` moved by `days` business days (negative: back); 0 gives the date itself. */
export function addBusinessDays(date: string, days: number, holidays: readonly string[]): string {
  let at = toMs(date);
  const step = days < 0 ? -DAY : DAY;
  for (let left = Math.abs(days); left > 0; ) {
    at += step;
    if (isBusinessDay(toDate(at), holidays)) left -= 1;
  }
  return toDate(at);
}

/** The first instant after the date (00:00 UTC of the next day): when that day is over. */
export function nextDayStart(date: string): Date {
  return new Date(toMs(date) + DAY);
}
