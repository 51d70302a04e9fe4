/**
 * One threaded reply per supplier event: a status change, a shipping update, or — for an event type we do
 * not know (or a known type whose data we could not read) — a generic rendering that still shows what the
 * supplier sent, so nothing is silently hidden. The event is parsed by the domain (orders/updates/stored-event.ts);
 * this only renders it.
 */
import { type EventToRender, parseStoredEvent } from "../../../orders/updates/stored-event.ts";
import type {
  ShippingUpdatedEvent,
  StatusChangedEvent,
  SupplierEventCanonical,
} from "../../../supplier/events.ts";
import { formatEstimatedDelivery, formatInstant, shown, slackLink, stateLabel } from "./format.ts";

export interface RenderOptions {
  now: Date;
  /** IANA zone dates are shown in (default UTC). */
  timeZone?: string;
  /** The event happened before one already posted in the thread (it arrived late). */
  late?: boolean;
  /** The icon of a delivery, as the order goes (`:office:`); default a home. */
  deliveredEmoji?: string;
}

export interface RenderedMessage {
  /** Notification and fallback text. */
  text: string;
  blocks: Block[];
}

export type Block = Record<string, unknown>;

const SECTION_MAX = 3000;
const MAX_LINES_SHOWN = 20;
/** Longest free text (a reason) in a reply's blocks, and in its notification text. */
const REASON_MAX = 2800;
const REASON_IN_TEXT = 300;
/** Longest short value (a carrier, a tracking or item number) shown. */
const VALUE_MAX = 100;
/** The notification text stays far below Slack's 40,000 characters whatever the supplier sent. */
const TEXT_MAX = 1000;

const STATUS_EMOJI: Record<string, string> = {
  received: ":inbox_tray:",
  validated: ":white_check_mark:",
  in_fulfilment: ":gear:",
  picked: ":shopping_trolley:",
  packed: ":package:",
  shipped: ":truck:",
  partially_shipped: ":truck:",
  delivered: ":house_with_garden:",
  cancelled: ":x:",
};

const PARCEL_STATUS: Record<string, { emoji: string; words: string }> = {
  shipped: { emoji: ":truck:", words: "shipped" },
  in_transit: { emoji: ":truck:", words: "in transit" },
  out_for_delivery: { emoji: ":articulated_lorry:", words: "out for delivery" },
  delivered: { emoji: ":house_with_garden:", words: "delivered" },
  exception: { emoji: ":warning:", words: "delivery exception" },
};

/** A reply's `text`, what notifications and broadcasts show: built from escaped parts, and short. */
function notification(text: string): string {
  return text.length > TEXT_MAX ? `${text.slice(0, TEXT_MAX - 1).replace(/&[a-z]{0,3}$/, "")}…` : text;
}

export function section(text: string): Block {
  const clipped = text.length > SECTION_MAX ? `${text.slice(0, SECTION_MAX - 1)}…` : text;
  return { type: "section", text: { type: "mrkdwn", text: clipped } };
}

export function context(event: EventToRender, options: RenderOptions): Block {
  const timeZone = options.timeZone ?? "UTC";
  const parts = [`Supplier update · ${formatInstant(event.occurredAt, { now: options.now, timeZone })}`];
  if (options.late) parts.push("arrived late: this happened before the update above");
  return { type: "context", elements: [{ type: "mrkdwn", text: parts.join(" · ") }] };
}

function renderStatus(
  event: StatusChangedEvent,
  stored: EventToRender,
  options: RenderOptions,
): RenderedMessage {
  const { status, previousStatus, reason } = event.data;
  const label = stateLabel(status);
  const was = previousStatus ? ` (was ${stateLabel(previousStatus)})` : "";
  const emoji = (status === "delivered" && options.deliveredEmoji) || STATUS_EMOJI[status];
  const lines = [`${emoji ?? ":information_source:"} Status: *${label}*${was}`];
  if (reason) lines.push(shown(reason, REASON_MAX));
  return {
    text: notification(`Status: ${label}${was}${reason ? ` — ${shown(reason, REASON_IN_TEXT)}` : ""}`),
    blocks: [section(lines.join("\n")), context(stored, options)],
  };
}

function renderLines(lines: ShippingUpdatedEvent["data"]["lines"]): string {
  const items = lines
    .slice(0, MAX_LINES_SHOWN)
    .map((l) => `${l.quantity} × ${shown(l.itemNumber, VALUE_MAX)}`);
  if (lines.length > MAX_LINES_SHOWN) items.push(`and ${lines.length - MAX_LINES_SHOWN} more lines`);
  return items.join("\n");
}

function renderShipping(
  event: ShippingUpdatedEvent,
  stored: EventToRender,
  options: RenderOptions,
): RenderedMessage {
  const d = event.data;
  const timeZone = options.timeZone ?? "UTC";
  const known = PARCEL_STATUS[d.status] ?? { emoji: ":package:", words: d.status };
  const state =
    d.status === "delivered" && options.deliveredEmoji ? { ...known, emoji: options.deliveredEmoji } : known;
  const parcel = d.parcel.of > 1 ? `Parcel ${d.parcel.number} of ${d.parcel.of}` : "Parcel";
  const carrier = shown(d.carrier, VALUE_MAX);
  const headline = `${state.emoji} *${parcel}* ${state.words} · ${carrier}`;
  const fields: Block[] = [
    { type: "mrkdwn", text: `*Tracking*\n${slackLink(d.trackingUrl ?? "", d.trackingNumber)}` },
  ];
  const arrival =
    d.status !== "delivered" && d.estimatedDelivery
      ? formatEstimatedDelivery(d.estimatedDelivery, { now: options.now, timeZone })
      : null;
  if (arrival) fields.push({ type: "mrkdwn", text: `*Delivery*\n${arrival}` });
  const blocks: Block[] = [{ ...section(headline), fields }];
  if (d.status === "exception" || d.exceptionReason) {
    blocks.push(
      section(`:warning: ${shown(d.exceptionReason ?? "The carrier reported a problem.", REASON_MAX)}`),
    );
  }
  if (d.lines.length > 0) blocks.push(section(`*In this parcel*\n${renderLines(d.lines)}`));
  blocks.push(context(stored, options));
  const text =
    `${parcel} ${state.words} with ${carrier}, tracking ${shown(d.trackingNumber, VALUE_MAX)}` +
    (arrival ? `, ${arrival}` : "") +
    (d.exceptionReason ? ` — ${shown(d.exceptionReason, REASON_IN_TEXT)}` : "");
  return { text: notification(text), blocks };
}

function renderGeneric(
  event: SupplierEventCanonical,
  issues: string[],
  stored: EventToRender,
  options: RenderOptions,
): RenderedMessage {
  const json = JSON.stringify(event.data ?? {}, null, 2) ?? "{}";
  const note =
    issues.length > 0
      ? `\n_Shown as received: its details did not match what we expect (${shown(issues.slice(0, 3).join("; "), 1000)})._`
      : "";
  const type = shown(event.type, VALUE_MAX);
  return {
    text: notification(`Supplier update: ${type}`),
    blocks: [
      section(`:information_source: Supplier update \`${type}\`${note}`),
      section(`\`\`\`${shown(json, SECTION_MAX - 20)}\`\`\``),
      context(stored, options),
    ],
  };
}

export function renderEventReply(stored: EventToRender, options: RenderOptions): RenderedMessage {
  const parsed = parseStoredEvent(stored);
  switch (parsed.kind) {
    case "status_changed":
      return renderStatus(parsed.event, stored, options);
    case "shipping_updated":
      return renderShipping(parsed.event, stored, options);
    case "unknown":
      return renderGeneric(parsed.event, parsed.issues, stored, options);
  }
}

/**
 * The reply in short, for when Slack refused the full one (`slackError`, e.g. `msg_too_long`): what happened in a
 * few words, no supplier text beyond the state, and a note that it was shortened.
 */
export function renderShortReply(
  stored: EventToRender,
  options: RenderOptions,
  slackError: string,
): RenderedMessage {
  const parsed = parseStoredEvent(stored);
  let what: string;
  if (parsed.kind === "status_changed") what = `Status: ${stateLabel(parsed.event.data.status)}`;
  else if (parsed.kind === "shipping_updated") {
    const d = parsed.event.data;
    what = `Parcel ${d.parcel.number} of ${d.parcel.of}: ${PARCEL_STATUS[d.status]?.words ?? d.status}`;
  } else what = `Supplier update ${shown(stored.type, VALUE_MAX)}`;
  const note = `Shortened: Slack refused the full update (${shown(slackError, 40)}).`;
  return {
    text: notification(`${what} (shortened)`),
    blocks: [section(`:information_source: ${what}\n_${note}_`), context(stored, options)],
  };
}
