/**
 * A supplier event's reply in its order's thread: the event's rendering (replies.ts) with what the order adds —
 * the ticket and order number leading the fallback text that notifications and screen readers show, an icon
 * for a delivery that matches where the order goes, and, for the supplier's `received`, the order placed with
 * its correlation id.
 */
import type { Order } from "../../../store/repositories/orders.ts";
import { escapeMrkdwn } from "./format.ts";
import {
  context,
  type EventToRender,
  parseStoredEvent,
  type RenderedMessage,
  type RenderOptions,
  renderEventReply,
  section,
} from "./replies.ts";

/** "ABC-123 · order ABC-123-1", or "Order PO-77" for an order without a ticket. */
export function orderSubject(order: Pick<Order, "customerReference" | "externalDocumentNumber">): string {
  return order.customerReference
    ? `${order.customerReference} · order ${order.externalDocumentNumber}`
    : `Order ${order.externalDocumentNumber}`;
}

/** The supplier's `received`: the order is placed, under this correlation id. */
function renderPlaced(
  event: EventToRender,
  correlationId: string,
  reason: string | undefined,
  options: RenderOptions,
) {
  const lines = [
    `:white_check_mark: *Placed with the supplier* · correlation id \`${escapeMrkdwn(correlationId)}\``,
  ];
  if (reason) lines.push(escapeMrkdwn(reason));
  return {
    text: `Placed with the supplier (correlation id ${correlationId})${reason ? ` — ${reason}` : ""}`,
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
