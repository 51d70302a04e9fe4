/**
 * The answer to `/order status TICKET-123`: each of the ticket's orders with its number (linked to its message),
 * status line, items and every parcel's tracking. Ephemeral: only the person who asked sees it.
 */
import type { types } from "@slack/bolt";
import type { Customer } from "../../config/catalog.ts";
import type { Order } from "../../orders/model/order.ts";
import { orderTotalText } from "./money.ts";
import { orderStatusLine, trackingLinks } from "./order-message.ts";
import { escapeMrkdwn as esc, mrkdwn, shown, slackLink, truncate } from "./text.ts";

export interface OrderStatusEntry {
  order: Order;
  /** The order message's permalink, when Slack gave one. */
  link: string | null;
}

export interface OrderStatusOptions {
  customer: Customer;
  now: Date;
  timeZone: string;
  /** More orders matched than are shown. */
  more: boolean;
  /** How many matching orders were left out because the asker cannot see where they were posted, in words. */
  leftOut?: string;
}

const ITEMS_SHOWN = 6;

function items(order: Order, customer: Customer): string {
  const lines = order.request.orderLines;
  const listed = lines.slice(0, ITEMS_SHOWN).map((line) => {
    const name = customer.item(line.itemNumber)?.name;
    return `${line.quantity} × ${shown(name ?? line.itemNumber, 100)}`;
  });
  if (lines.length > ITEMS_SHOWN) listed.push(`and ${lines.length - ITEMS_SHOWN} more`);
  return listed.join(", ");
}

function entryText(entry: OrderStatusEntry, options: OrderStatusOptions): string {
  const { order, link } = entry;
  const title = link
    ? `*${slackLink(link, order.externalDocumentNumber)}*`
    : `*${shown(order.externalDocumentNumber, 100)}*`;
  const ticket = order.customerReference ? ` · ${shown(order.customerReference, 100)}` : "";
  const parts = [
    `${title}${ticket} · ${esc(order.profile)}`,
    orderStatusLine(order, { now: options.now, timeZone: options.timeZone }),
    `*Items:* ${items(order, options.customer)}`,
  ];
  const total = orderTotalText(order, options.customer.config.locale);
  if (total) parts.push(`*Total:* ${total}`);
  const tracking = trackingLinks(order.tracking);
  if (tracking.length > 0) {
    parts.push(`*Tracking:* ${tracking.join(", ")}`);
  }
  if (!link) parts.push("_Its message could not be linked (a DM, or it was deleted)._");
  return truncate(parts.join("\n"), 3000);
}

export function orderStatusMessage(
  reference: string,
  entries: readonly OrderStatusEntry[],
  options: OrderStatusOptions,
): { text: string; blocks: types.KnownBlock[] } {
  const count = `${entries.length}${options.more ? "+" : ""} order${entries.length === 1 && !options.more ? "" : "s"}`;
  const blocks: types.KnownBlock[] = [
    { type: "section", text: mrkdwn(`*${esc(reference)}*: ${count}`) },
    ...entries.map((e): types.KnownBlock => ({ type: "section", text: mrkdwn(entryText(e, options)) })),
  ];
  if (options.more) {
    blocks.push({
      type: "context",
      elements: [mrkdwn("Only the most recent orders are shown; App Home lists your own.")],
    });
  }
  if (options.leftOut) blocks.push({ type: "context", elements: [mrkdwn(options.leftOut)] });
  const summary = entries.map(
    (e) => `${esc(e.order.externalDocumentNumber)} ${e.order.status.replace(/_/g, " ")}`,
  );
  const leftOut = options.leftOut ? ` ${options.leftOut}` : "";
  return { text: truncate(`${esc(reference)}: ${count} (${summary.join(", ")}).${leftOut}`, 3000), blocks };
}
