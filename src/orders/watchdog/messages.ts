/**
 * What the watchdog says: the order's thread reply and the admins' alert for a condition found, and why an alert
 * closed by itself. Plain words with dates people read ("Mon 7 Dec"); times in UTC, said so.
 */
import type { Order } from "../model/order.ts";
import type { AdminAlert, AlertPart } from "../ports.ts";
import type { Overdue, WatchdogCondition, WatchdogRules } from "./decide.ts";

/** "Mon 7 Dec": a YYYY-MM-DD date, or an instant's day in `timeZone` (default UTC). */
export function dayOf(date: string | Date, timeZone = "UTC"): string {
  const typed = typeof date === "string";
  const at = typed ? new Date(`${date.slice(0, 10)}T12:00:00Z`) : date;
  const format = new Intl.DateTimeFormat("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    timeZone: typed ? "UTC" : timeZone,
  });
  return format.format(at).replace(",", "");
}

/** "Mon 7 Dec 09:00 (Europe/Amsterdam)". */
function momentOf(at: Date, timeZone = "UTC"): string {
  const time = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone,
  });
  return `${dayOf(at, timeZone)} ${time.format(at)} ${timeZone === "UTC" ? "UTC" : `(${timeZone})`}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What is overdue and since when, in one sentence. */
export function overdueSentence(order: Order, overdue: Overdue, rules: WatchdogRules): string {
  const name = `order ${order.externalDocumentNumber}`;
  const zone = rules.timeZone ?? "UTC";
  switch (overdue.condition) {
    case "not_accepted":
      return (
        `No word from the supplier: ${name} was placed on ${momentOf(new Date(overdue.expected), zone)} and the supplier ` +
        `has sent no update at all in ${plural(rules.acceptedWithinHours, "hour")} (overdue since ${momentOf(overdue.since, zone)}).`
      );
    case "not_shipped":
      return (
        `Not shipped yet: ${name} was expected to ship by ${dayOf(overdue.expected)}` +
        `${order.expectedDelivery ? ` (expected delivery ${dayOf(order.expectedDelivery)})` : ""}, and has not ` +
        `shipped ${plural(rules.shippedWithinDays, "business day")} later (overdue since ${dayOf(overdue.since, zone)}).`
      );
    case "not_delivered":
      return (
        `Not delivered yet: ${name} was expected on ${dayOf(overdue.expected)}, and has not been delivered ` +
        `${plural(rules.deliveredWithinDays, "business day")} later (overdue since ${dayOf(overdue.since, zone)}).`
      );
  }
}

/** The reply in the order's thread. */
export function overdueReply(order: Order, overdue: Overdue, rules: WatchdogRules): string {
  return `:hourglass: ${overdueSentence(order, overdue, rules)} The admins have been told.`;
}

const TITLES: Record<WatchdogCondition, string> = {
  not_accepted: "No word from the supplier",
  not_shipped: "Not shipped in time",
  not_delivered: "Not delivered in time",
};

/** The admins' alert: an attention item with Mark handled; it closes by itself when the supplier's event comes. */
export function overdueAlert(order: Order, overdue: Overdue, rules: WatchdogRules): AdminAlert {
  const ticket = order.customerReference ? ` for ${order.customerReference}` : "";
  const where: AlertPart[] = order.slackChannelId
    ? [" Its thread is in ", { channel: order.slackChannelId }, "."]
    : [];
  return {
    key: `stalled-order:${order.id}:${overdue.condition}`,
    title: `${TITLES[overdue.condition]}: order ${order.externalDocumentNumber}`,
    text: [
      `${overdueSentence(order, overdue, rules)} Order ${order.externalDocumentNumber}${ticket} (profile ${order.profile}).`,
      ...where,
      " Ask the supplier about it; this alert closes by itself when the supplier's update comes. Mark handled if it " +
        "was dealt with another way.",
    ],
    subject: { kind: "stalled_order", orderId: order.id, condition: overdue.condition },
  };
}

/** Why a condition's alert closed by itself. */
export const CLEARED_BECAUSE: Record<WatchdogCondition, string> = {
  not_accepted: "the supplier's first update came",
  not_shipped: "the supplier shipped it",
  not_delivered: "the supplier delivered it",
};
