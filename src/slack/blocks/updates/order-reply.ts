/**
 * A supplier event's reply in its order's thread: the event's rendering (replies.ts) with what the order adds —
 * the ticket and order number leading the fallback text that notifications and screen readers show, and the
 * delivery's icon matching where the order goes.
 */
import type { Order } from "../../../store/repositories/orders.ts";
import { type EventToRender, type RenderedMessage, type RenderOptions, renderEventReply } from "./replies.ts";

/** "ABC-123 · order ABC-123-1", or "Order PO-77" for an order without a ticket. */
export function orderSubject(order: Pick<Order, "customerReference" | "externalDocumentNumber">): string {
  return order.customerReference
    ? `${order.customerReference} · order ${order.externalDocumentNumber}`
    : `Order ${order.externalDocumentNumber}`;
}

export function renderOrderReply(
  event: EventToRender,
  order: Pick<Order, "customerReference" | "externalDocumentNumber" | "request">,
  options: Omit<RenderOptions, "subject" | "deliveryAt">,
): RenderedMessage {
  return renderEventReply(event, {
    ...options,
    subject: orderSubject(order),
    deliveryAt: order.request.shipping.deliveryAt,
  });
}
