/**
 * Words and dates for order updates.
 *
 * Time zones: a message is rendered once, for everyone in the channel, so dates are shown in one configured
 * zone (the customer file's `timeZone`, default UTC: `Customer.timeZone`) rather than each reader's. An estimated delivery is a calendar date without
 * a zone ("2025-11-26"); "in 2 days" counts calendar days from *today in that zone*, as of posting (a reply is
 * not re-rendered as days pass, so the absolute date always comes first).
 */
import { differenceInCalendarDays } from "date-fns/differenceInCalendarDays";
import { format } from "date-fns/format";
import { isValid } from "date-fns/isValid";
import { parseISO } from "date-fns/parseISO";
import type { OrderState } from "../../../orders/model/status.ts";

export { escapeMrkdwn, shown, slackLink } from "../text.ts";

const STATE_LABELS: Record<OrderState, string> = {
  queued: "Queued",
  placing: "Placing",
  failed: "Failed",
  received: "Received",
  validated: "Validated",
  in_fulfilment: "In fulfilment",
  picked: "Picked",
  packed: "Packed",
  shipped: "Shipped",
  partially_shipped: "Partially shipped",
  delivered: "Delivered",
  cancelled: "Cancelled",
  awaiting_approval: "Awaiting approval",
  rejected_by_approver: "Rejected by approver",
  approval_expired: "Approval expired",
};

/** "in_fulfilment" → "In fulfilment"; an unknown value is shown as given, underscores spaced. */
export function stateLabel(state: string): string {
  return STATE_LABELS[state as OrderState] ?? state.replace(/_/g, " ");
}

/** The calendar date (YYYY-MM-DD) of `instant` in `timeZone`. */
export function calendarDateIn(instant: Date, timeZone: string): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(instant);
}

/** "Tue 24 Nov 14:02 UTC" (the year added when it is not the current one). */
export function formatInstant(instant: Date, options: { now: Date; timeZone: string }): string {
  const sameYear =
    calendarDateIn(instant, options.timeZone).slice(0, 4) ===
    calendarDateIn(options.now, options.timeZone).slice(0, 4);
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: options.timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    ...(sameYear ? {} : { year: "numeric" }),
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short",
  }).formatToParts(instant);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  const year = sameYear ? "" : ` ${get("year")}`;
  return `${get("weekday")} ${get("day")} ${get("month")}${year} ${get("hour")}:${get("minute")} ${get("timeZoneName")}`;
}

function daysInWords(days: number): string {
  if (days === 0) return "today";
  if (days === 1) return "tomorrow";
  if (days === -1) return "yesterday";
  return days > 0 ? `in ${days} days` : `${-days} days ago`;
}

/**
 * "arrives Thu 26 Nov, in 2 days" / "arrives Tue 24 Nov, today" / "was due Mon 23 Nov, yesterday".
 * Returns null for a value that is not a calendar date.
 */
export function formatEstimatedDelivery(
  date: string,
  options: { now: Date; timeZone: string },
): string | null {
  const due = parseISO(date);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !isValid(due)) return null;
  // Both sides as local-midnight calendar dates: the difference is in calendar days, DST-proof.
  const today = parseISO(calendarDateIn(options.now, options.timeZone));
  const days = differenceInCalendarDays(due, today);
  const shown = format(due, due.getFullYear() === today.getFullYear() ? "EEE d MMM" : "EEE d MMM yyyy");
  return days >= 0 ? `arrives ${shown}, ${daysInWords(days)}` : `was due ${shown}, ${daysInWords(days)}`;
}
