/** The admin alert for a placement that failed for good, with the subject that gives it Retry now / Mark handled. */
import type { Order } from "../../store/repositories/orders.ts";
import type { AdminAlert, AlertPart } from "../ports.ts";

const WHY_MAX = 500;

export function failedOrderAlert(order: Order): AdminAlert {
  const error = order.lastError ?? {};
  const message = typeof error.message === "string" ? error.message : "no reason was recorded";
  const code = typeof error.code === "string" ? ` (${error.code})` : "";
  const ticket = order.customerReference ? ` for ${order.customerReference}` : "";
  const requester: AlertPart[] =
    order.source === "workflow" || order.source === "cli" ? [] : [", asked by ", { user: order.requestedBy }];
  const maybePlaced =
    error.maybePlaced === true
      ? " An earlier attempt may have reached the supplier: a retry that the supplier answers DUPLICATE_ORDER counts as placed."
      : "";
  return {
    key: `failed-order:${order.id}:${order.statusAt.toISOString()}`,
    title: `Order ${order.externalDocumentNumber} was not placed`,
    text: [
      `Order ${order.externalDocumentNumber}${ticket} (profile ${order.profile})`,
      ...requester,
      `, failed for good${code}: ${message.slice(0, WHY_MAX)}.${maybePlaced} Fix the cause, then Retry now ` +
        "places it once more; Mark handled if it was dealt with another way.",
    ],
    subject: { kind: "failed_order", orderId: order.id },
  };
}
