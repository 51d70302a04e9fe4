/** The admin alert for a placement that failed for good, with the subject that gives it Retry now / Mark handled. */
import type { Order } from "../model/order.ts";
import type { AdminAlert, AlertPart } from "../ports.ts";

const WHY_MAX = 500;

export function failedOrderAlert(order: Order): AdminAlert {
  const failure = order.failure;
  const message = failure?.message ?? "no reason was recorded";
  const code = failure?.code ? ` (${failure.code})` : "";
  const ticket = order.customerReference ? ` for ${order.customerReference}` : "";
  const requester: AlertPart[] =
    order.source === "workflow" || order.source === "cli" ? [] : [", asked by ", { user: order.requestedBy }];
  const maybePlaced =
    failure && "maybePlaced" in failure && failure.maybePlaced === true
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
