/**
 * The order message's status line (a context block), kept current by the post-update job through the
 * order message builder: "*Shipped* · since Tue 24 Nov 14:02 UTC · DHL 1Z999 (link) · arrives Thu 26 Nov, in 2 days".
 */

import type { Order } from "../../../orders/model/order.ts";
import { readTracking } from "../../../orders/updates/tracking.ts";
import { formatEstimatedDelivery, formatInstant, slackLink, stateLabel } from "./format.ts";

/** Stable block_id of the status line, so tools (the demo's transcript) can find it. */
export const STATUS_LINE_BLOCK_ID = "order_status_line";

export function statusLineText(
  order: Pick<Order, "status" | "statusAt" | "statusOccurredAt" | "tracking">,
  options: { now: Date; timeZone?: string },
): string {
  const timeZone = options.timeZone ?? "UTC";
  const since = order.statusOccurredAt ?? order.statusAt;
  const parts = [
    `*${stateLabel(order.status)}*`,
    `since ${formatInstant(since, { now: options.now, timeZone })}`,
  ];
  const tracking = readTracking(order.tracking);
  if (tracking) {
    const t = tracking.latest;
    parts.push(slackLink(t.trackingUrl ?? "", `${t.carrier} ${t.trackingNumber}`));
    if (t.status !== "delivered" && t.estimatedDelivery) {
      const arrival = formatEstimatedDelivery(t.estimatedDelivery, { now: options.now, timeZone });
      if (arrival) parts.push(arrival);
    }
  }
  return parts.join(" · ");
}

export function statusLineBlock(
  order: Pick<Order, "status" | "statusAt" | "statusOccurredAt" | "tracking">,
  options: { now: Date; timeZone?: string },
): Record<string, unknown> {
  return {
    type: "context",
    block_id: STATUS_LINE_BLOCK_ID,
    elements: [{ type: "mrkdwn", text: statusLineText(order, options) }],
  };
}
