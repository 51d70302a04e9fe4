/** The admin alert when an order's updates cannot be posted (channel archived, bot removed), with Retry posting. */
import type { Order } from "../model/order.ts";
import type { AdminAlert } from "../ports.ts";

export function unpostedUpdatesAlert(
  order: Order,
  pending: number,
  channel: string,
  /** Why Slack refused (`is_archived`, `not_in_channel`…) and what it means, in plain words. */
  error: { reason: string; message: string },
): AdminAlert {
  const ticket = order.customerReference ? ` (${order.customerReference})` : "";
  return {
    key: `updates-destination-gone:${order.id}:${error.reason}`,
    subject: { kind: "unposted_updates", orderId: order.id },
    title: `Order ${order.externalDocumentNumber}: updates cannot be posted`,
    text: [
      `${pending} supplier update${pending === 1 ? "" : "s"} for order ${order.externalDocumentNumber}${ticket} ` +
        "could not be posted in ",
      { channel },
      `: ${error.message}. Posting stopped for this order; the updates are kept and go out with the order's next ` +
        "update, or at once with Retry posting, once this is fixed.",
    ],
  };
}
