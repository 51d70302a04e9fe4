/** App Home: "My orders" (the user's recent orders with status, ticket, recipient and tracking) and a button. */
import type { types } from "@slack/bolt";
import type { ProfileSpend } from "../../orders/budget/spend.ts";
import { type OnTimeRow, onTimeWords } from "../../orders/dates/on-time.ts";
import type { Order } from "../../orders/model/order.ts";
import type { AttentionList } from "../../orders/operations/types.ts";
import { approvalLine } from "./approval.ts";
import { needsAttentionBlocks } from "./attention.ts";
import { homeApprovalBlocks } from "./home-approvals.ts";
import { homeSpendBlocks } from "./home-spend.ts";
import { ACTION } from "./ids.ts";
import { orderTotalText } from "./money.ts";
import { orderStatusLine, type StatusLineOptions, trackingLinks } from "./order-message.ts";
import { escapeMrkdwn as esc, mrkdwn, plain } from "./text.ts";

type KnownBlock = types.KnownBlock;

function totalOf(order: Order, locale: string | undefined): string {
  const total = orderTotalText(order, locale);
  return total ? ` · ${total}` : "";
}

function onTimeBlock(rows: readonly OnTimeRow[]): KnownBlock {
  const text =
    rows.length === 0
      ? "On time this month: no deliveries with a needed-by date yet."
      : `On time this month: ${rows.map((r) => esc(onTimeWords(r))).join(" · ")}`;
  return { type: "context", elements: [mrkdwn(text)] };
}

/** 3 fixed blocks + 2 per order, + "Needs attention" for admins (src/orders/operations/list.ts) ≤ 100. */
export const HOME_ORDER_LIMIT = 20;

/**
 * `attention`: an admin's "Needs attention"; `awaitingMe`: the orders waiting for this approver. Both above
 * "My orders" (absent for everyone else).
 */
export function buildHomeView(
  orders: readonly Order[],
  attention?: AttentionList | null,
  awaitingMe: readonly Order[] = [],
  /** The customer file's locale, amounts are written in. */
  locale?: string,
  /** An admin's "Spend this month" (budgeted profiles); null for everyone else. */
  spend: readonly ProfileSpend[] | null = null,
  /** Admins: this month's deliveries with a needed-by date, on time by profile. */
  onTime: readonly OnTimeRow[] | null = null,
  /** The app's now and the customer's time zone, which the orders' dates are written from and in. */
  dates: StatusLineOptions = {},
): types.HomeView {
  const blocks: KnownBlock[] = [
    ...(attention ? needsAttentionBlocks(attention) : []),
    ...(onTime ? [onTimeBlock(onTime)] : []),
    ...homeSpendBlocks(spend, locale),
    ...homeApprovalBlocks(awaitingMe),
    { type: "header", text: plain("My orders", 150) },
    {
      type: "actions",
      elements: [
        {
          type: "button",
          action_id: ACTION.homePlaceOrder,
          text: plain("Place an order", 75),
          style: "primary",
          value: "home",
        },
      ],
    },
  ];
  if (orders.length === 0) {
    blocks.push({
      type: "section",
      text: mrkdwn(
        "You have no orders yet. Type `/order TICKET-123` in a helpdesk channel, or use the button above.",
      ),
    });
  }
  for (const order of orders.slice(0, HOME_ORDER_LIMIT)) {
    const contact = order.request.shipping.contact;
    const links = trackingLinks(order.tracking);
    const where = order.slackChannelId && order.slackMessageTs ? ` · in <#${order.slackChannelId}>` : "";
    const lines = [
      `*${esc(order.customerReference ?? order.externalDocumentNumber)}* · ${esc(order.externalDocumentNumber)}${where}`,
      orderStatusLine(order, dates),
      ...(order.approval ? [approvalLine(order) ?? ""].filter(Boolean) : []),
      `For ${esc(`${contact.firstName} ${contact.lastName}`.trim())} · ${order.request.orderLines.length} line(s)${totalOf(order, locale)}`,
      ...(links.length > 0 ? [links.join(" · ")] : []),
    ];
    blocks.push({ type: "section", text: mrkdwn(lines.join("\n")) });
    const date = Math.floor(order.createdAt.getTime() / 1000);
    blocks.push({
      type: "context",
      elements: [
        mrkdwn(`Ordered <!date^${date}^{date_short_pretty} at {time}|${order.createdAt.toISOString()}>`),
      ],
    });
  }
  return { type: "home", blocks };
}
