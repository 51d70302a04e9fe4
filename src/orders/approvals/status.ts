/** The approval statuses of an order (orders/model/status.ts): ours, never the supplier's. */
export { APPROVAL_STATES, type ApprovalState, isApprovalState } from "../model/status.ts";

/** Ended without being placed: rejected by an approver or expired. */
export function isApprovalFinal(status: string): boolean {
  return status === "rejected_by_approver" || status === "approval_expired";
}

/**
 * Who asked for the current approval round: its requester and whoever resubmitted it (Fix and resubmit). None of
 * them may decide the round or is asked to, even as an approver: otherwise an approver could resubmit a colleague's
 * rejected order to their own address and approve it themselves.
 */
export function roundRequesters(order: { requestedBy: string; resubmittedBy: string | null }): string[] {
  return order.resubmittedBy && order.resubmittedBy !== order.requestedBy
    ? [order.requestedBy, order.resubmittedBy]
    : [order.requestedBy];
}
