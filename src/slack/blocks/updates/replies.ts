/**
 * One threaded reply per supplier event: a status change, a shipping update, or — for an event type we do
 * not know (or a known type whose data we could not read) — a generic rendering that still shows what the
 * supplier sent, so nothing is silently hidden.
 */
import {
  type ParsedSupplierEvent,
  parseSupplierEvent,
  type ShippingUpdatedEvent,
  type StatusChangedEvent,
  type SupplierEvent,
} from "../../../supplier/events.ts";
import { escapeMrkdwn, formatEstimatedDelivery, formatInstant, link, stateLabel } from "./format.ts";

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

/** The stored event, as the post-update job has it. */
export interface EventToRender {
  id: string;
  type: string;
  occurredAt: Date;
  payload: unknown;
}

const SECTION_MAX = 3000;
const MAX_LINES_SHOWN = 20;

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
  if (reason) lines.push(escapeMrkdwn(reason));
  return {
    text: `Status: ${label}${was}${reason ? ` — ${reason}` : ""}`,
    blocks: [section(lines.join("\n")), context(stored, options)],
  };
}

function renderLines(lines: ShippingUpdatedEvent["data"]["lines"]): string {
  const shown = lines.slice(0, MAX_LINES_SHOWN).map((l) => `${l.quantity} × ${escapeMrkdwn(l.itemNumber)}`);
  if (lines.length > MAX_LINES_SHOWN) shown.push(`and ${lines.length - MAX_LINES_SHOWN} more lines`);
  return shown.join("\n");
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
  const carrier = escapeMrkdwn(d.carrier);
  const headline = `${state.emoji} *${parcel}* ${state.words} · ${carrier}`;
  const fields: Block[] = [{ type: "mrkdwn", text: `*Tracking*\n${link(d.trackingUrl, d.trackingNumber)}` }];
  const arrival =
    d.status !== "delivered" && d.estimatedDelivery
      ? formatEstimatedDelivery(d.estimatedDelivery, { now: options.now, timeZone })
      : null;
  if (arrival) fields.push({ type: "mrkdwn", text: `*Delivery*\n${arrival}` });
  const blocks: Block[] = [{ ...section(headline), fields }];
  if (d.status === "exception" || d.exceptionReason) {
    blocks.push(section(`:warning: ${escapeMrkdwn(d.exceptionReason ?? "The carrier reported a problem.")}`));
  }
  if (d.lines.length > 0) blocks.push(section(`*In this parcel*\n${renderLines(d.lines)}`));
  blocks.push(context(stored, options));
  const text =
    `${parcel} ${state.words} with ${d.carrier}, tracking ${d.trackingNumber}` +
    (arrival ? `, ${arrival}` : "") +
    (d.exceptionReason ? ` — ${d.exceptionReason}` : "");
  return { text, blocks };
}

function renderGeneric(
  event: SupplierEvent,
  issues: string[],
  stored: EventToRender,
  options: RenderOptions,
): RenderedMessage {
  const json = JSON.stringify(event.data ?? {}, null, 2);
  const budget = SECTION_MAX - 20;
  const shown = json.length > budget ? `${json.slice(0, budget)}\n…` : json;
  const note =
    issues.length > 0
      ? `\n_Shown as received: its details did not match what we expect (${escapeMrkdwn(issues.slice(0, 3).join("; "))})._`
      : "";
  return {
    text: `Supplier update: ${event.type}`,
    blocks: [
      section(`:information_source: Supplier update \`${escapeMrkdwn(event.type)}\`${note}`),
      section(`\`\`\`${escapeMrkdwn(shown)}\`\`\``),
      context(stored, options),
    ],
  };
}

/** Parses a stored payload again; a payload that no longer parses at all is rendered generically too. */
export function parseStoredEvent(stored: EventToRender): ParsedSupplierEvent {
  try {
    return parseSupplierEvent(stored.payload);
  } catch (error) {
    const payload = (typeof stored.payload === "object" && stored.payload) || {};
    const event = {
      ...payload,
      id: stored.id,
      type: stored.type,
      occurredAt: stored.occurredAt.toISOString(),
      correlationId: "",
      data: (payload as { data?: unknown }).data ?? payload,
    } as SupplierEvent;
    return { kind: "unknown", event, issues: [error instanceof Error ? error.message : String(error)] };
  }
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
