/**
 * App Home's "Waiting for your approval": the orders of the profiles the user approves that wait for a decision
 * (not their own), each with its summary, the matched rule and the same Approve / Reject buttons as the DM.
 */
import type { types } from "@slack/bolt";
import type { Order } from "../../orders/model/order.ts";
import { ACTION } from "./ids.ts";
import { escapeMrkdwn as esc, mrkdwn, plain } from "./text.ts";

/** Shown at most (3 blocks each, with App Home's own blocks well under Slack's 100). */
export const HOME_APPROVAL_LIMIT = 10;

export function homeApprovalBlocks(orders: readonly Order[]): types.KnownBlock[] {
  if (orders.length === 0) return [];
  const blocks: types.KnownBlock[] = [{ type: "header", text: plain("Waiting for your approval", 150) }];
  for (const order of orders.slice(0, HOME_APPROVAL_LIMIT)) {
    const contact = order.request.shipping.contact;
    const units = order.request.orderLines.reduce((sum, l) => sum + l.quantity, 0);
    const by = order.source === "workflow" ? "a workflow" : `<@${order.requestedBy}>`;
    blocks.push({
      type: "section",
      text: mrkdwn(
        [
          `*${esc(order.customerReference ?? order.externalDocumentNumber)}* · ${esc(order.externalDocumentNumber)} · ${esc(order.profile)}`,
          `Requested by ${by} for ${esc(`${contact.firstName} ${contact.lastName}`.trim())} · ${units} unit(s) · ${order.request.shipping.deliveryAt} delivery`,
          `Needs approval for ${esc(order.approval?.phrase ?? "its profile's rules")}`,
        ].join("\n"),
      ),
    });
    blocks.push({
      type: "actions",
      elements: [
        {
          type: "button",
          action_id: ACTION.approveOrder,
          text: plain("Approve", 75),
          style: "primary",
          value: order.id,
        },
        {
          type: "button",
          action_id: ACTION.rejectOrder,
          text: plain("Reject", 75),
          style: "danger",
          value: order.id,
        },
      ],
    });
    blocks.push({ type: "divider" });
  }
  return blocks;
}
