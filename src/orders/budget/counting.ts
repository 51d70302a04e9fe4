/**
 * Which orders count in a month's spend, decided for every status (a new status will not compile until it is
 * decided here). An order counts from its acceptance (placed, or waiting for an approver) for as long as it may
 * still be charged; one that ends without being charged releases its amount.
 */
import type { OrderState } from "../model/status.ts";

const COUNTS: Record<OrderState, boolean> = {
  // Waiting for an approver: reserved, so that approving it cannot overspend.
  awaiting_approval: true,
  // Accepted and (being) placed.
  queued: true,
  placing: true,
  received: true,
  validated: true,
  in_fulfilment: true,
  picked: true,
  packed: true,
  partially_shipped: true,
  shipped: true,
  delivered: true,
  // Ended without being charged: released. A failed order that the supplier turns out to have received moves on
  // to a supplier status and counts again; a failed or rejected order resubmitted counts again once accepted.
  failed: false,
  rejected_by_approver: false,
  approval_expired: false,
  // The supplier cancelled it: nothing is delivered or invoiced.
  cancelled: false,
};

export const COUNTING_STATES: readonly OrderState[] = (Object.keys(COUNTS) as OrderState[]).filter(
  (s) => COUNTS[s],
);

export function countsInSpend(status: OrderState): boolean {
  return COUNTS[status];
}
