/**
 * An order's approval (src/orders/approvals/): what was asked when the order was accepted (stored as JSON in
 * `orders.approval`) and the decision (who, when, why), read from the order's row by the store.
 */

/** What was asked. */
export interface ApprovalRequest {
  /** The matched rule's key and its phrase ("a Home delivery"). */
  rule: string;
  phrase: string;
  /** Who may approve, as the profile named them when the order was accepted (shown on the order's message). */
  approvers: string[];
  approverGroups: string[];
  /** ISO times, from the app's clock. */
  requestedAt: string;
  remindAt: string;
  expireAt: string;
  /**
   * The profile's budget when the order was accepted (src/orders/budget/): the month (`YYYY-MM`), its spend with
   * this order, the budget, as decimal strings; absent for a profile without a budget (and in older requests).
   */
  budget?: { month: string; spent: string; monthly: string; currency: string } | undefined;
}

export interface OrderApproval extends ApprovalRequest {
  decidedBy: string | null;
  decidedAt: Date | null;
  /** The approver's reason for a rejection. */
  reason: string | null;
  /** When the decision (or the expiry) was told in the order's thread. */
  announcedAt: Date | null;
}

export type ApprovalOutcome = "approved" | "rejected" | "expired";
