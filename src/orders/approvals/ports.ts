/**
 * What approvals need from the outside world, as interfaces: the approvers' DMs and the order's thread (the Slack
 * side is src/slack/approvals-notifier.ts), group membership (the authorizer's cached lookups), and counters.
 */

import type { Membership } from "../authorization.ts";
import type { Order } from "../model/order.ts";
import type { SlackCallOptions } from "../ports.ts";

/** An approver's DM about one order. */
export interface ApprovalDm {
  channelId: string;
  messageTs: string;
}

export interface ApprovalNotifier {
  /** DMs `approver` the order's summary, the matched rule and the Approve / Reject buttons; returns the DM. */
  ask(order: Order, approver: string, options?: SlackCallOptions): Promise<ApprovalDm>;
  /** Rewrites an approver's DM to show the decision or the expiry (no buttons left). */
  showDecision(order: Order, dm: ApprovalDm, options?: SlackCallOptions): Promise<void>;
  /** One reminder in the thread of the approver's DM: the order still waits for a decision. */
  remind(order: Order, dm: ApprovalDm, options?: SlackCallOptions): Promise<void>;
  /** Tells the order's thread (and so its requester) the decision or the expiry, with the reason. */
  announce(order: Order, options?: SlackCallOptions): Promise<void>;
}

/** What approvals count (src/metrics.ts implements it with Prometheus metrics). */
export interface ApprovalMetrics {
  requested(profile: string): void;
  decided(outcome: "approved" | "rejected" | "expired", profile: string, secondsToDecision: number): void;
}

export type ApprovalMembership = Pick<Membership, "isAmong" | "expand">;
