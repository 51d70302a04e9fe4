/** The approval statuses of an order (orders/model/status.ts): ours, never the supplier's. */
export { APPROVAL_STATES, type ApprovalState, isApprovalState } from "../model/status.ts";

/** Ended without being placed: rejected by an approver or expired. */
export function isApprovalFinal(status: string): boolean {
  return status === "rejected_by_approver" || status === "approval_expired";
}
