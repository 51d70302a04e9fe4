/**
 * The order's message: posted when the order is accepted from Slack ("placing order for ABC-123 …") and rebuilt
 * from the order row on every change, so any part of the app (placement, webhook updates) can re-render it and
 * get the same message with a newer status line. The status line is the block `status`.
 */
import type { types } from "@slack/bolt";
import type { Customer } from "../../config/catalog.ts";
import { parseStoredDraft } from "../../orders/draft.ts";
import { describeFieldErrors, fieldErrorsFromDetails } from "../../orders/fields.ts";
import { isKeyFailure, KEY_UNREADABLE_MESSAGE } from "../../orders/key-failure.ts";
import { mayHaveBeenPlaced } from "../../orders/model/failure.ts";
import { canResubmit, isRejected, isRetrying, type Order } from "../../orders/model/order.ts";
import { readTracking } from "../../orders/updates/tracking.ts";
import { parseWorkflowContext } from "../../orders/workflow/context.ts";
import { COUNTRIES, isCountryCode } from "../../supplier/countries.ts";
import { approvalLine, approvalStatusLine } from "./approval.ts";
import { ACTION, BLOCK } from "./ids.ts";
import { linePriceText, orderTotalText } from "./money.ts";
import { escapeMrkdwn as esc, mrkdwn, plain, shown, slackLink, truncate } from "./text.ts";
import { orderDatesText } from "./updates/dates-line.ts";
import { STATUS_LINE_BLOCK_ID, statusLineText } from "./updates/status-line.ts";

type KnownBlock = types.KnownBlock;

export interface OrderMessage {
  text: string;
  blocks: KnownBlock[];
}

/** The message's dates are written in the customer's time zone (`customer.timeZone`), from `now`. */
export interface OrderMessageOptions extends Omit<StatusLineOptions, "timeZone"> {
  customer: Customer;
  /** A line shown above the order (e.g. why it arrived by DM). */
  note?: string;
}

const MAX_LINE_SECTIONS = 8;
/** Longest ticket id or document number, and longest reason, in the message's notification text. */
const TEXT_VALUE_MAX = 100;
const TEXT_REASON_MAX = 500;

const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** The Slack user a workflow order is for (the step's `recipient` input), when one was given. */
export function recipientUserId(order: Order): string | null {
  const id = parseWorkflowContext(order.workflow)?.recipientUserId ?? null;
  return id !== null && SLACK_USER_ID.test(id) ? id : null;
}

function retryingText(order: Order): string {
  const code = order.failure?.code;
  if (code === "UNAUTHORIZED") {
    return "⚠️ Not placed yet: the supplier rejected our API key and an admin has been alerted. Retrying automatically.";
  }
  if (code === "RATE_LIMITED")
    return "⚠️ Not placed yet: the supplier asked us to slow down. Retrying automatically.";
  if (code === "SECRET_UNAVAILABLE") {
    return "⚠️ Not placed yet: the API key could not be read. Retrying automatically.";
  }
  return "⚠️ Supplier unavailable, retrying automatically.";
}

const STATUS_TEXT: Record<string, string> = {
  queued: "⏳ Placing the order with the supplier…",
  placing: "⏳ Placing the order with the supplier…",
  received: "✅ Placed with the supplier",
  validated: "✅ Accepted by the supplier",
  in_fulfilment: "📦 Being prepared by the supplier",
  picked: "📦 Picked",
  packed: "📦 Packed",
  shipped: "🚚 Shipped",
  partially_shipped: "🚚 Partly shipped",
  delivered: "🎉 Delivered",
  cancelled: "🛑 Cancelled",
  awaiting_approval: "⏳ Waiting for approval",
  rejected_by_approver: "❌ Rejected by an approver, not placed",
  approval_expired: "⌛ Approval expired, not placed",
};

export interface StatusLineOptions {
  now?: Date;
  timeZone?: string;
}

/**
 * The status line in words, from the order alone. Our own states (placing, retrying, rejected) are worded here;
 * the supplier's states use the webhook side's line (state, since when, tracking, estimated arrival).
 */
export function orderStatusLine(order: Order, options: StatusLineOptions = {}): string {
  const dates = orderDatesText(order, {
    now: options.now ?? new Date(),
    timeZone: options.timeZone ?? "UTC",
  });
  const line = statusOnly(order, options);
  return dates ? `${line}\n${dates}` : line;
}

function statusOnly(order: Order, options: StatusLineOptions): string {
  if (isRetrying(order)) return retryingText(order);
  const approval = approvalStatusLine(order);
  if (approval) return approval;
  if (order.status === "failed") {
    return isRejected(order) ? "❌ Rejected by the supplier: fix and resubmit" : "🚫 Not placed: see above";
  }
  if (order.status === "queued" || order.status === "placing") return STATUS_TEXT[order.status]!;
  const line = statusLineText(order, {
    now: options.now ?? new Date(),
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
  });
  const icon = STATUS_TEXT[order.status]?.split(" ")[0];
  const earlier =
    order.correlationId === null
      ? " · placed by an earlier attempt; the supplier's id follows with its first update"
      : "";
  return `${icon ? `${icon} ` : ""}${line}${earlier}`;
}

/** The reasons shown under a rejected or failed order, in plain words. */
export function orderProblems(order: Order): string[] {
  const failure = order.failure;
  if (order.status !== "failed") return [];
  if (failure?.reason === "duplicate_number") {
    return [
      `The supplier already has an order numbered ${order.externalDocumentNumber}. Resubmit to get a new number, or type another one.`,
    ];
  }
  if (failure?.reason === "rejected") {
    if (failure.details) {
      const lines = describeFieldErrors(fieldErrorsFromDetails(failure.details));
      if (lines.length > 0) return lines;
    }
    return [failure.message ?? "The supplier refused the order."];
  }
  const out: string[] = [];
  if (isKeyFailure(failure)) {
    // Plain words only, whatever the row holds: the secret id, region and variables to check are in the admin alert.
    out.push(`${KEY_UNREADABLE_MESSAGE.charAt(0).toUpperCase()}${KEY_UNREADABLE_MESSAGE.slice(1)}.`);
  } else if (failure?.reason === "retries_exhausted") {
    out.push("The supplier could not be reached for several hours, so the order was not placed.");
  } else if (failure?.code === "PROTOCOL_ERROR") {
    out.push(
      `The supplier's answer could not be read. Ask the supplier whether order ${order.externalDocumentNumber} exists before resubmitting.`,
    );
  } else if (failure?.message !== undefined) {
    out.push(`${failure.message.charAt(0).toUpperCase()}${failure.message.slice(1)}`);
  }
  if (mayHaveBeenPlaced(failure) && failure?.code !== "PROTOCOL_ERROR") {
    out.push(
      `One attempt may have reached the supplier: ask them whether order ${order.externalDocumentNumber} exists before resubmitting.`,
    );
  }
  return out.length > 0 ? out : ["The order could not be placed."];
}

function countryName(code: string): string {
  return isCountryCode(code) ? COUNTRIES[code] : code;
}

/**
 * Every parcel's tracking, as mrkdwn (one per parcel, as the latest shipping updates say): a link when the
 * supplier's URL can be one (`slackLink`), else the carrier and number as text.
 */
export function trackingLinks(tracking: unknown): string[] {
  const doc = readTracking(tracking);
  if (!doc) return [];
  const parcels = Object.values(doc.parcels);
  const list = parcels.length > 0 ? parcels : [doc.latest];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of list) {
    // Parcels without a URL are told apart by their tracking number.
    const key = p.trackingUrl ?? `${p.carrier} ${p.trackingNumber}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const parcel = p.parcel.of > 1 ? ` (parcel ${p.parcel.number} of ${p.parcel.of})` : "";
    out.push(slackLink(p.trackingUrl ?? "", `${p.carrier} ${p.trackingNumber}${parcel}`));
  }
  return out.slice(0, 10);
}

function lineSections(order: Order, customer: Customer): KnownBlock[] {
  const locale = customer.config.locale;
  const texts = order.request.orderLines.map((line, i) => {
    const item = customer.item(line.itemNumber);
    const name = item ? `${esc(item.name)} (${esc(line.itemNumber)})` : esc(line.itemNumber);
    const price = linePriceText(order, i, line.quantity, locale);
    return `• ${line.quantity} × ${name}${price}${line.comments ? ` — _${esc(line.comments)}_` : ""}`;
  });
  const sections: string[] = [];
  let current = "*Items*";
  let shown = 0;
  for (const t of texts) {
    if (current.length + t.length + 1 > 2900) {
      if (sections.length + 1 >= MAX_LINE_SECTIONS) break;
      sections.push(current);
      current = "";
    }
    current += `${current ? "\n" : ""}${truncate(t, 2900)}`;
    shown++;
  }
  if (shown < texts.length) current += `\n…and ${texts.length - shown} more line(s)`;
  const total = orderTotalText(order, locale);
  if (total) current += `\n*Total: ${total}*`;
  sections.push(current);
  return sections.map((text) => ({ type: "section", text: mrkdwn(text) }));
}

export function orderMessage(order: Order, options: OrderMessageOptions): OrderMessage {
  const { request } = order;
  const shipping = request.shipping;
  const contact = shipping.contact;
  const ticket = order.customerReference ?? order.externalDocumentNumber;
  const recipient = `${contact.firstName} ${contact.lastName}`.trim();
  const blocks: KnownBlock[] = [];

  if (options.note) blocks.push({ type: "context", elements: [mrkdwn(options.note)] });

  const headline =
    order.status === "queued" || order.status === "placing"
      ? `Placing order for *${esc(ticket)}* …`
      : `Order for *${esc(ticket)}*`;
  const forWhom = recipientUserId(order);
  // A workflow order's requester is the bot itself: say where it came from instead.
  const by =
    (order.source === "workflow"
      ? "placed by a workflow (Place IT order)"
      : `requested by <@${order.requestedBy}>`) +
    (order.resubmittedBy && order.resubmittedBy !== order.requestedBy
      ? ` · resubmitted by <@${order.resubmittedBy}>`
      : "");
  blocks.push({
    type: "section",
    text: mrkdwn(`${headline}${forWhom ? ` for <@${forWhom}>` : ""} · ${esc(order.profile)} · ${by}`),
  });

  const address = [
    `${shipping.deliveryAt}${shipping.companyName ? ` · ${esc(shipping.companyName)}` : ""}`,
    shipping.attention ? `Attn: ${esc(shipping.attention)}` : null,
    esc(shipping.address1),
    shipping.address2 ? esc(shipping.address2) : null,
    `${esc(shipping.zipCode)} ${esc(shipping.city)}${shipping.stateName ? `, ${esc(shipping.stateName)}` : ""}`,
    esc(countryName(shipping.countryIso2)),
  ]
    .filter(Boolean)
    .join("\n");
  const fields = [
    `*Recipient*\n${esc(recipient)}\n${esc(contact.email)}\n${esc(contact.phoneNumber)}`,
    `*Deliver to*\n${address}`,
    `*Order number*\n${esc(order.externalDocumentNumber)}`,
    `*Supplier correlation id*\n${order.correlationId ? `\`${order.correlationId}\`` : "—"}`,
  ];
  if (shipping.reference) fields.push(`*Shipping reference*\n${esc(shipping.reference)}`);
  const approval = approvalLine(order);
  if (approval) blocks.push({ type: "context", elements: [mrkdwn(approval)] });
  blocks.push({ type: "section", fields: fields.map((f) => mrkdwn(f, 2000)) });
  blocks.push(...lineSections(order, options.customer));

  const links = trackingLinks(order.tracking);
  if (links.length > 0) {
    blocks.push({
      type: "section",
      text: mrkdwn(`*Tracking*\n${links.join("\n")}`),
    });
  }

  const problems = orderProblems(order);
  if (problems.length > 0) {
    blocks.push({ type: "section", text: mrkdwn(problems.map((p) => `• ${esc(p)}`).join("\n")) });
  }
  if (canResubmit(order) && parseStoredDraft(order.draft)) {
    blocks.push({
      type: "actions",
      block_id: BLOCK.orderActions,
      elements: [
        {
          type: "button",
          action_id: ACTION.fixAndResubmit,
          text: plain("Fix and resubmit", 75),
          style: "primary",
          value: order.id,
        },
      ],
    });
  }
  blocks.push({
    type: "context",
    block_id: STATUS_LINE_BLOCK_ID,
    elements: [
      mrkdwn(
        orderStatusLine(order, {
          ...(options.now && { now: options.now }),
          timeZone: options.customer.timeZone,
        }),
      ),
    ],
  });

  // What notifications and screen readers show: the order number and the ticket, in mrkdwn like the blocks, so
  // what people typed or the supplier said is escaped here too.
  const edn = shown(order.externalDocumentNumber, TEXT_VALUE_MAX);
  const named = order.customerReference
    ? `order ${edn} for ${shown(ticket, TEXT_VALUE_MAX)}`
    : `order ${edn}`;
  const text =
    order.status === "queued" || order.status === "placing"
      ? isRetrying(order)
        ? `Not placed yet, ${named}: supplier unavailable, retrying automatically`
        : `Placing ${named} …`
      : order.status === "failed"
        ? `Not placed, ${named}: ${problems[0] ? shown(problems[0], TEXT_REASON_MAX) : "see details"}`
        : `Order for ${shown(ticket, TEXT_VALUE_MAX)} (${edn}): ${STATUS_TEXT[order.status] ?? order.status}`;
  return { text, blocks: blocks.slice(0, 50) };
}
