/**
 * Approval's Block Kit: the line on the order's message ("Waiting for approval from @A or @B · a Home delivery",
 * then the decision), the approver's DM (the order's summary, the matched rule, Approve / Reject), the reminder,
 * the thread's announcement of the decision, and the modal asking for a rejection's reason.
 */

import type { types } from "@slack/bolt";
import type { Customer } from "../../config/catalog.ts";
import { formatDay } from "../../orders/dates/business-days.ts";
import type { Order } from "../../orders/model/order.ts";
import { ACTION, BLOCK, CALLBACK } from "./ids.ts";
import { escapeMrkdwn as esc, mrkdwn, plain, shown, slackDate } from "./text.ts";

type KnownBlock = types.KnownBlock;

/** Longest reason quoted in a message (the modal accepts up to `MAX_REASON_CHARS`). */
const REASON_MAX = 1000;

/** "<@A>, <@B> or members of <!subteam^S1>" */
export function approversText(order: Order): string {
  const approval = order.approval;
  if (!approval) return "";
  const people = [
    ...approval.approvers.map((id) => `<@${id}>`),
    ...approval.approverGroups.map((id) => `members of <!subteam^${id}>`),
  ];
  if (people.length <= 1) return people.join("");
  return `${people.slice(0, -1).join(", ")} or ${people.at(-1)}`;
}

const reasonOf = (order: Order) => shown(order.approval?.reason ?? "", REASON_MAX);

/**
 * The approval on the order's message, in App Home and in the approvers' DMs: who is asked and why, or what was
 * decided, by whom and when (in each reader's time zone).
 */
export function approvalLine(order: Order): string | null {
  const approval = order.approval;
  if (!approval) return null;
  const why = `needed for ${esc(approval.phrase)}`;
  const when = approval.decidedAt ? ` on ${slackDate(approval.decidedAt)}` : "";
  switch (order.status) {
    case "awaiting_approval":
      return `⏳ Waiting for approval from ${approversText(order)} (${why})`;
    case "rejected_by_approver":
      return `❌ Rejected by <@${approval.decidedBy ?? "?"}>${when}: ${reasonOf(order)}`;
    case "approval_expired":
      return `⌛ Not approved in time: the approval request expired${when} (${why})`;
    default:
      return approval.decidedBy ? `✅ Approved by <@${approval.decidedBy}>${when} (${why})` : null;
  }
}

/** The status line for the approval states (the order's message, App Home). */
export function approvalStatusLine(order: Order): string | null {
  switch (order.status) {
    case "awaiting_approval":
      return "⏳ Waiting for approval: not sent to the supplier yet";
    case "rejected_by_approver":
      return "❌ Rejected by an approver: not placed. Fix and resubmit";
    case "approval_expired":
      return "⌛ Approval expired: not placed";
    default:
      return null;
  }
}

function summary(order: Order, customer: Customer): string {
  const { shipping, orderLines } = order.request;
  const contact = shipping.contact;
  const ticket = order.customerReference ?? order.externalDocumentNumber;
  const by = order.source === "workflow" ? "a workflow (Place IT order)" : `<@${order.requestedBy}>`;
  const items = orderLines
    .slice(0, 20)
    .map((line) => {
      const item = customer.item(line.itemNumber);
      return `• ${line.quantity} × ${item ? `${esc(item.name)} (${esc(line.itemNumber)})` : esc(line.itemNumber)}`;
    })
    .join("\n");
  const more = orderLines.length > 20 ? `\n…and ${orderLines.length - 20} more line(s)` : "";
  return [
    `*${esc(ticket)}* · order ${esc(order.externalDocumentNumber)} · ${esc(order.profile)}`,
    `*Requested by* ${by}`,
    `*Recipient* ${esc(`${contact.firstName} ${contact.lastName}`.trim())}`,
    `*Delivery* ${shipping.deliveryAt} · ${esc(shipping.city)}, ${esc(shipping.countryIso2)}`,
    ...(order.neededBy ? [`*Needed by* ${formatDay(order.neededBy)}`] : []),
    `*Items*\n${items}${more}`,
  ].join("\n");
}

/** The approver's DM: asking while the order waits, the decision once made (no buttons then). */
export function approvalDm(order: Order, customer: Customer): { text: string; blocks: KnownBlock[] } {
  const ticket = shown(order.customerReference ?? order.externalDocumentNumber, 100);
  const waiting = order.status === "awaiting_approval";
  const phrase = esc(order.approval?.phrase ?? "");
  const blocks: KnownBlock[] = [
    {
      type: "section",
      text: mrkdwn(
        waiting
          ? `*An order needs your approval* (${phrase})`
          : `*An order that needed your approval* (${phrase})`,
      ),
    },
    { type: "section", text: mrkdwn(summary(order, customer)) },
  ];
  if (waiting) {
    blocks.push({
      type: "actions",
      block_id: BLOCK.approvalActions,
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
  } else {
    blocks.push({ type: "context", elements: [mrkdwn(approvalLine(order) ?? "Decided")] });
  }
  const text = waiting
    ? `Approval needed: order for ${ticket} (${shown(order.approval?.phrase ?? "", 200)})`
    : `Order for ${ticket}: ${decisionWords(order)}`;
  return { text, blocks };
}

function decisionWords(order: Order): string {
  const by = order.approval?.decidedBy ? ` by <@${order.approval.decidedBy}>` : "";
  if (order.status === "rejected_by_approver") return `Rejected${by}: ${reasonOf(order)}`;
  if (order.status === "approval_expired") return "The approval request expired; the order was not placed";
  return `Approved${by}`;
}

export function reminderText(order: Order): string {
  const ticket = shown(order.customerReference ?? order.externalDocumentNumber, 100);
  return `⏰ Reminder: the order for ${ticket} still waits for your approval (above). It expires if nobody decides.`;
}

/** The thread's reply about the decision; the requester is mentioned when the order ended without placement. */
export function decisionAnnouncement(order: Order): string {
  const requester = order.source === "workflow" ? "" : ` <@${order.requestedBy}>`;
  if (order.status === "rejected_by_approver") {
    return `❌ ${decisionWords(order)}.${requester} The order was not placed; use Fix and resubmit on the order to change it and ask again.`;
  }
  if (order.status === "approval_expired") {
    return `⌛ Nobody approved this order in time, so the approval request expired and the order was not placed.${requester} Place it again if it is still needed.`;
  }
  return `✅ ${decisionWords(order)}. Placing the order with the supplier.`;
}

/** `private_metadata` of the reject modal: only a lookup key, checked again on submit. */
export function rejectReasonModal(order: Order): types.ModalView {
  const ticket = order.customerReference ?? order.externalDocumentNumber;
  return {
    type: "modal",
    callback_id: CALLBACK.rejectReason,
    private_metadata: order.id,
    title: plain("Reject order", 24),
    submit: plain("Reject", 24),
    close: plain("Cancel", 24),
    blocks: [
      {
        type: "section",
        text: mrkdwn(
          `Reject the order for *${esc(ticket)}* (${esc(order.externalDocumentNumber)})? The requester sees your reason.`,
        ),
      },
      {
        type: "input",
        block_id: BLOCK.rejectReason,
        label: plain("Reason", 2000),
        element: {
          type: "plain_text_input",
          action_id: ACTION.value,
          multiline: true,
          max_length: REASON_MAX,
          placeholder: plain("Why is it rejected, and what would you approve instead?", 150),
        },
      },
    ],
  };
}
