/**
 * The order, as the domain sees it: from the moment the agent submits it until the supplier delivers it. The
 * store maps its rows to this (store/repositories/order-row.ts); nothing here knows the database.
 */
import type { CreateOrderRequest } from "../../supplier/schema.ts";
import type { OrderApproval } from "./approval.ts";
import type { OrderFailure } from "./failure.ts";
import type { OrderStatus } from "./status.ts";

export const ORDER_SOURCES = ["command", "shortcut", "workflow", "cli"] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

/** Where `expectedDelivery` came from: the customer file's lead times, or the supplier's own estimate. */
export type ExpectedDeliverySource = "lead_time" | "supplier";

export type JsonObject = Record<string, unknown>;

export interface Order {
  id: string;
  profile: string;
  externalDocumentNumber: string;
  correlationId: string | null;
  /** The ticket id, sent as `customerReference`. */
  customerReference: string | null;
  /** Slack user id of whoever asked (or the workflow's user). */
  requestedBy: string;
  /** Slack user id of whoever last used "Fix and resubmit" on it (the requester or a colleague), and when. */
  resubmittedBy: string | null;
  resubmittedAt: Date | null;
  source: OrderSource;
  idempotencyKey: string | null;
  slackTeamId: string | null;
  slackChannelId: string | null;
  slackMessageTs: string | null;
  slackThreadTs: string | null;
  /** Set before the order's message is posted: while `slackMessageTs` is null, Slack may already show it. */
  messageAttemptedAt: Date | null;
  status: OrderStatus;
  statusAt: Date;
  /** `occurredAt` of the supplier event that set the status; `null` while the status is one of our own. */
  statusOccurredAt: Date | null;
  /** Why it failed, or why its last placement attempt did; null once placed or resubmitted. */
  failure: OrderFailure | null;
  /** The request as sent (or as it will be sent) to the supplier. */
  request: CreateOrderRequest;
  /** The form values, kept for "Fix and resubmit". */
  draft: JsonObject | null;
  /** Workflow Builder step context (function execution id…) when the order came from a workflow. */
  workflow: JsonObject | null;
  tracking: JsonObject | null;
  /** What approval was asked and the decision; null (or absent) for an order that never needed approval. */
  approval?: OrderApproval | null | undefined;
  /** The date (YYYY-MM-DD) it must be delivered by, e.g. a new hire's first day; null when nobody gave one. */
  neededBy: string | null;
  /** Our best estimate of delivery (YYYY-MM-DD): from lead times at placement, then the supplier's latest. */
  expectedDelivery: string | null;
  expectedDeliverySource: ExpectedDeliverySource | null;
  /** The order's total at the customer's agreed prices, an exact decimal string ("1234.50"); null without prices. */
  total: string | null;
  /** ISO 4217 code of `total`. */
  currency: string | null;
  /** Since when its expected delivery is after its needed-by date; null (or absent) when on time. */
  atRiskSince?: Date | null | undefined;
  /** The calendar date it was delivered, and by how many days after its needed-by date (0 or more). */
  deliveredOn?: string | null | undefined;
  lateDays?: number | null | undefined;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewOrder {
  id: string;
  profile: string;
  externalDocumentNumber: string;
  customerReference?: string | null | undefined;
  requestedBy: string;
  source: OrderSource;
  /** Same key twice (a double-clicked submit) → one order. */
  idempotencyKey?: string | null | undefined;
  slackTeamId?: string | null | undefined;
  slackChannelId?: string | null | undefined;
  slackMessageTs?: string | null | undefined;
  slackThreadTs?: string | null | undefined;
  /** Default `queued`. */
  status?: OrderStatus | undefined;
  request: CreateOrderRequest;
  draft?: object | null | undefined;
  workflow?: object | null | undefined;
  neededBy?: string | null | undefined;
  expectedDelivery?: string | null | undefined;
  expectedDeliverySource?: ExpectedDeliverySource | null | undefined;
  total?: string | null | undefined;
  currency?: string | null | undefined;
}

export interface OriginMessage {
  teamId?: string | null | undefined;
  channelId: string;
  messageTs: string;
  threadTs?: string | null | undefined;
}

/** Still being placed, after an attempt that failed in a way that may pass (the queue retries). */
export function isRetrying(order: Pick<Order, "status" | "failure">): boolean {
  return (order.status === "placing" || order.status === "queued") && order.failure?.kind === "retrying";
}

/** Refused by the supplier (or our copy of its rules): the agent fixes and resubmits. */
export function isRejected(order: Pick<Order, "status" | "failure">): boolean {
  return order.status === "failed" && order.failure?.kind === "rejected";
}

/**
 * Whether "Fix and resubmit" applies: refused or given up, and never accepted by the supplier. The one rule,
 * used by the order's message (whether to offer the button) and by the resubmission itself.
 */
export function canResubmit(order: Pick<Order, "status" | "correlationId">): boolean {
  // An approver's rejection too: the corrected order meets the approval rules again.
  return (
    (order.status === "failed" || order.status === "rejected_by_approver") && order.correlationId === null
  );
}
