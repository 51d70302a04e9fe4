/** An order as stored: the mapping from a database row to the domain's `Order`. */

import { parseOrderFailure } from "../../orders/model/failure.ts";
import type { Order } from "../../orders/model/order.ts";
import type { Row } from "../db.ts";

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
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
