/** An order as stored: its row's shape in TypeScript, and the mapping from a database row. */
import type { OrderStatus } from "../../supplier/events.ts";
import type { CreateOrderRequest } from "../../supplier/schema.ts";
import type { Row } from "../db.ts";
import { mapApproval, type OrderApproval } from "./approvals.ts";

export type OrderSource = "command" | "shortcut" | "workflow" | "cli";

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
  lastError: JsonObject | null;
  /** The request as sent (or as it will be sent) to the supplier. */
  request: CreateOrderRequest;
  /** The form values, kept for "Fix and resubmit". */
  draft: JsonObject | null;
  /** Workflow Builder step context (function execution id…) when the order came from a workflow. */
  workflow: JsonObject | null;
  tracking: JsonObject | null;
  /** What approval was asked and the decision; null for an order that never needed approval. */
  approval?: OrderApproval | null | undefined;
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
}

export interface OriginMessage {
  teamId?: string | null | undefined;
  channelId: string;
  messageTs: string;
  threadTs?: string | null | undefined;
}

export function mapOrder(row: Row): Order {
  return {
    id: row.id,
    profile: row.profile,
    externalDocumentNumber: row.external_document_number,
    correlationId: row.correlation_id,
    customerReference: row.customer_reference,
    requestedBy: row.requested_by,
    resubmittedBy: row.resubmitted_by ?? null,
    resubmittedAt: row.resubmitted_at ?? null,
    source: row.source,
    idempotencyKey: row.idempotency_key,
    slackTeamId: row.slack_team_id,
    slackChannelId: row.slack_channel_id,
    slackMessageTs: row.slack_message_ts,
    slackThreadTs: row.slack_thread_ts,
    messageAttemptedAt: row.message_attempted_at,
    status: row.status,
    statusAt: row.status_at,
    statusOccurredAt: row.status_occurred_at,
    lastError: row.last_error,
    request: row.request,
    draft: row.draft,
    workflow: row.workflow,
    tracking: row.tracking,
    approval: mapApproval(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
