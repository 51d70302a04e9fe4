/**
 * A supplier event's reply in its order's thread: the event's rendering (replies.ts) with what the order adds —
 * the ticket and order number leading the fallback text that notifications and screen readers show, an icon
 * for a delivery that matches where the order goes, and, for the supplier's `received`, the order placed with
 * its correlation id.
 */
import type { Order } from "../../../orders/model/order.ts";
import { type EventToRender, parseStoredEvent } from "../../../orders/updates/stored-event.ts";
import { shown } from "../text.ts";

/** Longest ticket id, order number or correlation id shown; longest reason in the blocks and in the text. */
const SUBJECT_VALUE_MAX = 100;
const REASON_MAX = 2800;
const REASON_IN_TEXT = 300;

import {
  context,
  type RenderedMessage,
  type RenderOptions,
  renderEventReply,
  renderShortReply,
  section,
} from "./replies.ts";

/** "ABC-123 · order ABC-123-1", or "Order PO-77" for an order without a ticket. */
export function orderSubject(order: Pick<Order, "customerReference" | "externalDocumentNumber">): string {
  const edn = shown(order.externalDocumentNumber, SUBJECT_VALUE_MAX);
  return order.customerReference
    ? `${shown(order.customerReference, SUBJECT_VALUE_MAX)} · order ${edn}`
    : `Order ${edn}`;
}

/**
 * The supplier's `received`: the order is placed, under this correlation id (absent when the supplier's events
 * name the order by its document number only).
 */
function renderPlaced(
  event: EventToRender,
  correlationId: string | undefined,
  reason: string | undefined,
  options: RenderOptions,
) {
  const id = correlationId === undefined ? undefined : shown(correlationId, SUBJECT_VALUE_MAX);
  const lines = [`:white_check_mark: *Placed with the supplier*${id ? ` · correlation id \`${id}\`` : ""}`];
  if (reason) lines.push(shown(reason, REASON_MAX));
  return {
    text: `Placed with the supplier${id ? ` (correlation id ${id})` : ""}${reason ? ` — ${shown(reason, REASON_IN_TEXT)}` : ""}`,
    blocks: [section(lines.join("\n")), context(event, options)],
  };
}

export function renderOrderReply(
  event: EventToRender,
  order: Pick<Order, "customerReference" | "externalDocumentNumber" | "request">,
  options: Omit<RenderOptions, "deliveredEmoji">,
): RenderedMessage {
  const parsed = parseStoredEvent(event);
  const rendered =
    parsed.kind === "status_changed" && parsed.event.data.status === "received"
      ? renderPlaced(event, parsed.event.correlationId, parsed.event.data.reason, options)
      : renderEventReply(event, {
          ...options,
          ...(order.request.shipping.deliveryAt === "Office" && { deliveredEmoji: ":office:" }),
        });
  return { ...rendered, text: `${orderSubject(order)}: ${rendered.text}` };
}

/** The reply in short (`renderShortReply`, after Slack refused the full one), its text naming the order too. */
export function renderOrderShortReply(
  event: EventToRender,
  order: Pick<Order, "customerReference" | "externalDocumentNumber">,
  options: Omit<RenderOptions, "deliveredEmoji">,
  slackError: string,
): RenderedMessage {
  const rendered = renderShortReply(event, options, slackError);
  return { ...rendered, text: `${orderSubject(order)}: ${rendered.text}` };
}
