/** The approval statuses of an order (ARCHITECTURE.md's table of states): ours, never the supplier's. */
import { APPROVAL_STATES } from "../../supplier/events.ts";

export type ApprovalState = (typeof APPROVAL_STATES)[number];

export { APPROVAL_STATES };

/** `awaiting_approval`, or a final `rejected_by_approver` / `approval_expired`: not placed, never sent. */
export function isApprovalState(status: string): status is ApprovalState {
  return (APPROVAL_STATES as readonly string[]).includes(status);
}

/** Ended without being placed: rejected by an approver or expired. */
export function isApprovalFinal(status: string): boolean {
  return status === "rejected_by_approver" || status === "approval_expired";
}
