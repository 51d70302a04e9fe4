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

/**
 * A post the caller recorded as attempted before making it. `earlierAttempt`: when an earlier attempt was recorded
 * (its post may be in Slack with its answer lost: a timeout, a kill), so the message is looked for by its metadata
 * before it is posted again; null or absent for the first attempt, posted straight away.
 */
export interface PostOptions extends SlackCallOptions {
  earlierAttempt?: Date | null | undefined;
}

export interface ApprovalNotifier {
  /**
   * DMs `approver` the order's summary, the matched rule and the Approve / Reject buttons; returns the DM (the one
   * an earlier attempt posted, when it finds it).
   */
  ask(order: Order, approver: string, options?: PostOptions): Promise<ApprovalDm>;
  /** Rewrites an approver's DM to show the decision or the expiry (no buttons left). */
  showDecision(order: Order, dm: ApprovalDm, options?: SlackCallOptions): Promise<void>;
  /** One reminder in the thread of the approver's DM: the order still waits for a decision. */
  remind(order: Order, dm: ApprovalDm, options?: PostOptions): Promise<void>;
  /** Tells the order's thread (and so its requester) the decision or the expiry, with the reason. */
  announce(order: Order, options?: PostOptions): Promise<void>;
}

/** What approvals count (src/metrics.ts implements it with Prometheus metrics). */
export interface ApprovalMetrics {
  requested(profile: string): void;
  decided(outcome: "approved" | "rejected" | "expired", profile: string, secondsToDecision: number): void;
}

export type ApprovalMembership = Pick<Membership, "isAmong" | "expand">;
