/**
 * The month an export covers: `YYYY-MM` as typed (`/order export 2026-11`, `orders export --month 2026-11`), or
 * the current month by the injected clock when none is given. Months are calendar months in UTC, the time zone
 * the supplier's confirmations and invoices use for their dates.
 */

export interface ExportMonth {
  /** `2026-11` */
  label: string;
  /** First instant of the month (inclusive). */
  start: Date;
  /** First instant of the next month (exclusive). */
  end: Date;
}

/**
 * `typed` is what was given (at most 20 characters); `message` says what to give instead without repeating it,
 * so each caller shows the typed text its own safe way (escaped in Slack, quoted on a terminal).
 */
export type MonthResult = { ok: true; month: ExportMonth } | { ok: false; typed: string; message: string };

const MONTH = /^(\d{4})-(\d{2})$/;

export function monthOf(year: number, monthIndex: number): ExportMonth {
  const start = new Date(Date.UTC(year, monthIndex, 1));
  const end = new Date(Date.UTC(year, monthIndex + 1, 1));
  return { label: start.toISOString().slice(0, 7), start, end };
}

/** Parses `YYYY-MM` (empty or absent: the month `now` is in). The message says what to type instead. */
export function parseExportMonth(text: string | undefined, now: Date): MonthResult {
  const typed = (text ?? "").trim();
  if (typed === "") return { ok: true, month: monthOf(now.getUTCFullYear(), now.getUTCMonth()) };
  const match = MONTH.exec(typed);
  const year = Number(match?.[1]);
  const month = Number(match?.[2]);
  if (!match || month < 1 || month > 12 || year < 2000 || year > 2999) {
    return {
      ok: false,
      typed: typed.length > 20 ? `${typed.slice(0, 20)}…` : typed,
      message: `That is not a month. Give the month as YYYY-MM, for example ${monthOf(now.getUTCFullYear(), now.getUTCMonth()).label}, or leave it out for the current month.`,
    };
  }
  return { ok: true, month: monthOf(year, month - 1) };
}

/** "November 2026", for messages. */
export function monthName(month: ExportMonth): string {
  return month.start.toLocaleString("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });
}
