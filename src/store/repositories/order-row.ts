/** An order as stored: the mapping from a database row to the domain's `Order`. */

import { parseOrderFailure } from "../../orders/model/failure.ts";
import type { Order } from "../../orders/model/order.ts";
import type { Row } from "../db.ts";
import { mapApproval } from "./approvals.ts";

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
    // Parsed once here: rows written by earlier versions map to a variant too (orders/model/failure.ts).
    failure: parseOrderFailure(row.last_error),
    request: row.request,
    draft: row.draft,
    workflow: row.workflow,
    tracking: row.tracking,
    approval: mapApproval(row),
    neededBy: isoDate(row.needed_by),
    expectedDelivery: isoDate(row.expected_delivery),
    expectedDeliverySource: row.expected_delivery_source ?? null,
    total: row.total ?? null,
    currency: row.currency ?? null,
    atRiskSince: row.at_risk_since ?? null,
    deliveredOn: isoDate(row.delivered_on),
    lateDays: row.late_days ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A `date` column as YYYY-MM-DD. node-postgres turns a date into a Date at local midnight of that day, so the
 * local getters give the day back whatever the process's time zone.
 */
export function isoDate(value: unknown): string | null {
  if (value == null) return null;
  if (typeof value === "string") return value.slice(0, 10);
  if (value instanceof Date) {
    const pad = (n: number) => String(n).padStart(2, "0");
    return `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`;
  }
  throw new Error(`expected a date column, got ${typeof value}`);
}
