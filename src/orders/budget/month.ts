/**
 * A budget's calendar month in the customer's time zone (`timeZone` in the customer file, UTC when absent): the
 * month an order counts in is the one its acceptance falls in there, so an order at 23:30 on 31 January in New York
 * (04:30 on 1 February UTC) counts in January for a customer in New York.
 */

export interface BudgetMonth {
  /** `2026-11` */
  label: string;
  /** First instant of the month in the time zone (inclusive). */
  start: Date;
  /** First instant of the next month there (exclusive). */
  end: Date;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** The wall-clock fields of `at` in the time zone. */
function wallClock(
  at: Date,
  timeZone: string,
): Record<"year" | "month" | "day" | "hour" | "minute" | "second", number> {
  const parts = Object.fromEntries(
    format(timeZone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The time zone's offset from UTC at `at`, in milliseconds (+1 h for Amsterdam in winter). */
function offsetMs(at: Date, timeZone: string): number {
  const w = wallClock(at, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/** The instant the wall clock in the time zone shows midnight of the first of the month. */
function firstInstant(year: number, monthIndex: number, timeZone: string): Date {
  const wall = Date.UTC(year, monthIndex, 1);
  // Twice: the offset at the guess may differ from the offset at the answer (a change of offset in between).
  let guess = wall - offsetMs(new Date(wall), timeZone);
  guess = wall - offsetMs(new Date(guess), timeZone);
  return new Date(guess);
}

export function budgetMonth(at: Date, timeZone = "UTC"): BudgetMonth {
  const { year, month } = wallClock(at, timeZone);
  return {
    label: `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}`,
    start: firstInstant(year, month - 1, timeZone),
    end: firstInstant(year, month, timeZone),
  };
}
