/**
 * What `/order` was asked: the form (`/order`, `/order ABC-123`), a ticket's or an order's status
 * (`/order status ABC-123`, `/order status ABC-123-1`), a month's orders as CSV (`/order export 2026-11`, admins),
 * or the list of forms (`/order help`). `help`, `status` and `export` are words, not ticket ids: a ticket id has a
 * number in it.
 */
import { ticketFromCommand } from "./ticket.ts";

export type OrderCommand =
  | { kind: "form"; ticket: string }
  /** `reference`: a ticket id or an order number, as typed; empty when it was left out. */
  | { kind: "status"; reference: string }
  | { kind: "help" }
  /** `/order export [YYYY-MM]` (admins): `month` as typed, every word after `export`; empty when left out. */
  | { kind: "export"; month: string };

export function parseOrderCommand(text: string, ticketPattern: RegExp): OrderCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const first = words[0]?.toLowerCase();
  if (first === "help" || first === "?") return { kind: "help" };
  if (first === "status") return { kind: "status", reference: words[1] ?? "" };
  if (first === "export") return { kind: "export", month: words.slice(1).join(" ") };
  return { kind: "form", ticket: ticketFromCommand(text, ticketPattern) };
}

/** The forms of the command, for `/order help` and for a `/order status` without a ticket. */
export function orderCommandHelp(command: string): string {
  return [
    `*${command}* opens the order form.`,
    `*${command} TICKET-123* opens it with the ticket filled in.`,
    `*${command} status TICKET-123* lists the ticket's orders: order number, status, items, tracking and a link to each order's message.`,
    `*${command} status ORDER-NUMBER* shows one order the same way.`,
    `*${command} help* shows this list.`,
    `*${command} export 2026-11* (admins) sends you that month's orders as a CSV file; without a month, the current one.`,
    "On a ticket message, *More actions → Order equipment* opens the form for the ticket it names.",
  ].join("\n");
}
