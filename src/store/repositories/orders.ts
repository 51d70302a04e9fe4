/**
 * Orders: our record of an order from the moment the agent submits it until the supplier delivers it.
 * Every function takes a `Queryable` first (the store, or the `tx` of a transaction) and runs one statement,
 * so callers compose them into transactions; none of them opens its own.
 */
import type { FinalFailure, RejectedFailure, RetryingFailure } from "../../orders/model/failure.ts";
import type { NewOrder, Order, OriginMessage } from "../../orders/model/order.ts";
import { LOCAL_ORDER_STATES, type OrderStatus, RANKED_ORDER_STATES } from "../../orders/model/status.ts";
import type { CreateOrderRequest } from "../../supplier/schema.ts";
import type { Queryable } from "../db.ts";
import { mapOrder } from "./order-row.ts";

export { mapOrder } from "./order-row.ts";

/** Statuses ordered by rank (orders/model/status.ts), handed to SQL so "only forward" runs in one statement. */
const RANKED_STATES: string[] = [...RANKED_ORDER_STATES];

/** Our own statuses; a supplier status replaces them whatever its time. */
const LOCAL_STATES: string[] = [...LOCAL_ORDER_STATES];

function json(value: object | null | undefined): string | null {
  return value == null ? null : JSON.stringify(value);
}

async function one(q: Queryable, text: string, params: unknown[]): Promise<Order | null> {
  const { rows } = await q.query(text, params);
  return rows[0] ? mapOrder(rows[0]) : null;
}

/** The columns an INSERT sets, in this order; the rest take their defaults. */
const INSERT_COLUMNS = [
  "id",
  "profile",
  "external_document_number",
  "customer_reference",
  "requested_by",
  "source",
  "idempotency_key",
  "slack_team_id",
  "slack_channel_id",
  "slack_message_ts",
  "slack_thread_ts",
  "status",
  "request",
  "draft",
  "workflow",
  "needed_by",
  "expected_delivery",
  "expected_delivery_source",
  "total",
  "currency",
  "line_prices",
] as const;

const JSONB_COLUMNS: ReadonlySet<string> = new Set(["request", "draft", "workflow", "line_prices"]);

type InsertRow = Record<(typeof INSERT_COLUMNS)[number], unknown>;

/** A new order's values by column, with the defaults our INSERTs give (`queued`, nulls). */
function insertRow(order: NewOrder): InsertRow {
  return {
    id: order.id,
    profile: order.profile,
    external_document_number: order.externalDocumentNumber,
    customer_reference: order.customerReference ?? null,
    requested_by: order.requestedBy,
    source: order.source,
    idempotency_key: order.idempotencyKey ?? null,
    slack_team_id: order.slackTeamId ?? null,
    slack_channel_id: order.slackChannelId ?? null,
    slack_message_ts: order.slackMessageTs ?? null,
    slack_thread_ts: order.slackThreadTs ?? null,
    status: order.status ?? "queued",
    request: order.request,
    draft: order.draft ?? null,
    workflow: order.workflow ?? null,
    needed_by: order.neededBy ?? null,
    expected_delivery: order.expectedDelivery ?? null,
    expected_delivery_source: order.expectedDeliverySource ?? null,
    total: order.total ?? null,
    currency: order.currency ?? null,
    line_prices: order.linePrices ?? null,
  };
}

const INSERT_ORDER = `INSERT INTO orders (${INSERT_COLUMNS.join(", ")})
  VALUES (${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})`;

function orderParams(order: NewOrder): unknown[] {
  const row = insertRow(order);
  return INSERT_COLUMNS.map((column) =>
    JSONB_COLUMNS.has(column) ? json(row[column] as object | null) : row[column],
  );
}

/**
 * Inserts an order. When `idempotencyKey` is already taken, nothing is inserted and the existing order is
 * returned with `created: false`, so a double submit places one order.
 */
export async function insertOrder(
  q: Queryable,
  order: NewOrder,
): Promise<{ order: Order; created: boolean }> {
  const inserted = await one(
    q,
    `${INSERT_ORDER} ON CONFLICT (idempotency_key) DO NOTHING RETURNING *`,
    orderParams(order),
  );
  if (inserted) return { order: inserted, created: true };
  const existing = await one(q, "SELECT * FROM orders WHERE idempotency_key = $1", [order.idempotencyKey]);
  if (!existing) throw new Error(`order ${order.id} was neither inserted nor found by its idempotency key`);
  return { order: existing, created: false };
}

/**
 * `insertOrder` for a document number we generated: when an order of the profile already has that number (an
 * agent typed it earlier), nothing is inserted and `taken` is answered, so the caller takes the next number.
 */
export async function insertOrderIfNumberFree(
  q: Queryable,
  order: NewOrder,
): Promise<{ order: Order; created: boolean } | { taken: true }> {
  const inserted = await one(q, `${INSERT_ORDER} ON CONFLICT DO NOTHING RETURNING *`, orderParams(order));
  if (inserted) return { order: inserted, created: true };
  const existing = await one(q, "SELECT * FROM orders WHERE idempotency_key = $1", [order.idempotencyKey]);
  return existing ? { order: existing, created: false } : { taken: true };
}

export function getOrder(q: Queryable, id: string): Promise<Order | null> {
  return one(q, "SELECT * FROM orders WHERE id = $1", [id]);
}

/** Locks the row until the transaction ends (use inside `store.transaction`). */
export function getOrderForUpdate(q: Queryable, id: string): Promise<Order | null> {
  return one(q, "SELECT * FROM orders WHERE id = $1 FOR UPDATE", [id]);
}

export function getOrderByCorrelationId(q: Queryable, correlationId: string): Promise<Order | null> {
  return one(q, "SELECT * FROM orders WHERE correlation_id = $1", [correlationId]);
}

/** Orders with this document number, in any profile (webhook events do not say which profile). */
export async function findOrdersByExternalDocumentNumber(
  q: Queryable,
  externalDocumentNumber: string,
): Promise<Order[]> {
  const { rows } = await q.query(
    "SELECT * FROM orders WHERE external_document_number = $1 ORDER BY created_at",
    [externalDocumentNumber],
  );
  return rows.map(mapOrder);
}

export function getOrderByIdempotencyKey(q: Queryable, key: string): Promise<Order | null> {
  return one(q, "SELECT * FROM orders WHERE idempotency_key = $1", [key]);
}

/** Records the Slack message the order's updates are threaded on. */
export function setOriginMessage(
  q: Queryable,
  orderId: string,
  origin: OriginMessage,
): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET slack_team_id = COALESCE($2, slack_team_id), slack_channel_id = $3, slack_message_ts = $4,
       slack_thread_ts = COALESCE($5, slack_thread_ts, $4), updated_at = now()
     WHERE id = $1 RETURNING *`,
    [orderId, origin.teamId ?? null, origin.channelId, origin.messageTs, origin.threadTs ?? null],
  );
}

/** Recorded before the order's message is posted (see src/orders/show-order.ts). */
export function markMessageAttempted(q: Queryable, orderId: string): Promise<Order | null> {
  return one(q, "UPDATE orders SET message_attempted_at = now() WHERE id = $1 RETURNING *", [orderId]);
}

/** `queued`/`failed` → `placing`. Returns null when the order has moved on (placed, or a supplier status). */
export function markPlacing(q: Queryable, orderId: string): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET status = 'placing', status_at = now(), updated_at = now()
     WHERE id = $1 AND status IN ('queued', 'placing', 'failed') AND correlation_id IS NULL RETURNING *`,
    [orderId],
  );
}

/** Keeps the last transient error (e.g. supplier unavailable, will retry) without changing the status. */
export function recordAttemptError(
  q: Queryable,
  orderId: string,
  failure: RetryingFailure,
): Promise<Order | null> {
  return one(q, "UPDATE orders SET last_error = $2, updated_at = now() WHERE id = $1 RETURNING *", [
    orderId,
    JSON.stringify(failure),
  ]);
}

export interface Placement {
  /** `null` when the supplier answered DUPLICATE_ORDER to our retry: an earlier attempt had placed it. */
  correlationId: string | null;
  placedEarlier: boolean;
  /**
   * When, by the app's clock: the order's message says "received since" then, beside the supplier's own times.
   * Default the database's now().
   */
  at?: Date;
}

/**
 * The supplier accepted the order: status `received` (unless a supplier event already set a status) and the
 * correlation id, which later webhook events are matched by. An existing correlation id is never replaced.
 * When `placedEarlier` the correlation id is unknown (null) until `setCorrelationId` learns it from an event.
 */
export function markPlaced(q: Queryable, orderId: string, placement: Placement): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET
       correlation_id = COALESCE(correlation_id, $2),
       status = CASE WHEN status = ANY($3::text[]) THEN 'received' ELSE status END,
       status_at = CASE WHEN status = ANY($3::text[]) THEN COALESCE($4::timestamptz, now()) ELSE status_at END,
       last_error = NULL,
       updated_at = now()
     WHERE id = $1 RETURNING *`,
    [orderId, placement.correlationId, LOCAL_STATES, placement.at ?? null],
  );
}

/**
 * Sets the correlation id once it is learnt later (an order placed earlier, matched by its document number).
 * Returns null when the order already has one.
 */
export function setCorrelationId(
  q: Queryable,
  orderId: string,
  correlationId: string,
): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET correlation_id = $2, updated_at = now()
     WHERE id = $1 AND correlation_id IS NULL RETURNING *`,
    [orderId, correlationId],
  );
}

/** Placement gave up (retries exhausted, unauthorised…): status `failed` with why. */
export function markFailed(q: Queryable, orderId: string, failure: FinalFailure): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET status = 'failed', status_at = now(), last_error = $2, updated_at = now()
     WHERE id = $1 AND status = ANY($3::text[]) RETURNING *`,
    [orderId, JSON.stringify(failure), LOCAL_STATES],
  );
}

/** The supplier refused the order: status `failed`, the failure says why; the agent may fix and resubmit. */
export function markRejected(
  q: Queryable,
  orderId: string,
  rejection: RejectedFailure,
): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET status = 'failed', status_at = now(), last_error = $2, updated_at = now()
     WHERE id = $1 AND status = ANY($3::text[]) RETURNING *`,
    [orderId, JSON.stringify(rejection), LOCAL_STATES],
  );
}

export interface Resubmission {
  /** Slack user id of who resubmits (recorded; the requester stays who asked first). */
  resubmittedBy: string;
  request: CreateOrderRequest;
  draft?: object | null | undefined;
  /** A new document number when the old one cannot be reused (default: the request's). */
  externalDocumentNumber?: string | undefined;
  /** The corrected lines' prices (orders/pricing.ts); null without prices. */
  pricing?: { total: string; currency: string; linePrices: string[] } | null | undefined;
}

/**
 * "Fix and resubmit": a failed order that never reached the supplier gets the corrected request and goes back
 * to `queued`. Returns null when the order is not in that state (already placed, or resubmitted twice). The
 * WHERE is `canResubmit` (orders/model/order.ts) checked again under the row's lock.
 */
export function resetForResubmit(
  q: Queryable,
  orderId: string,
  resubmission: Resubmission,
): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET request = $2, draft = COALESCE($3, draft),
       external_document_number = COALESCE($4, external_document_number),
       status = 'queued', status_at = now(), status_occurred_at = NULL, last_error = NULL, updated_at = now(),
       resubmitted_by = $5, resubmitted_at = now(), total = $6, currency = $7, line_prices = $8
     WHERE id = $1 AND status IN ('failed', 'rejected_by_approver') AND correlation_id IS NULL RETURNING *`,
    [
      orderId,
      JSON.stringify(resubmission.request),
      json(resubmission.draft),
      resubmission.externalDocumentNumber ?? resubmission.request.externalDocumentNumber ?? null,
      resubmission.resubmittedBy,
      resubmission.pricing?.total ?? null,
      resubmission.pricing?.currency ?? null,
      json(resubmission.pricing?.linePrices ?? null),
    ],
  );
}

/**
 * Applies a status reported by the supplier if it moves the order forward: a higher `statusRank`
 * (orders/model/status.ts), or the same
 * rank with a later `occurredAt`. An older or lower event never overwrites a newer status. Returns the updated
 * order, or null when the event was stale (or the order does not exist).
 */
export function applySupplierStatus(
  q: Queryable,
  orderId: string,
  status: OrderStatus,
  occurredAt: Date,
): Promise<Order | null> {
  return one(
    q,
    `WITH ranked AS (
       SELECT id,
         COALESCE(array_position($4::text[], status), 0) AS current_rank,
         COALESCE(array_position($4::text[], $2::text), 0) AS next_rank
       FROM orders WHERE id = $1 FOR UPDATE
     )
     UPDATE orders o SET status = $2, status_at = now(), status_occurred_at = $3, updated_at = now()
     FROM ranked r
     WHERE o.id = r.id AND (
       r.next_rank > r.current_rank
       OR (r.next_rank = r.current_rank AND (o.status_occurred_at IS NULL OR o.status_occurred_at < $3))
     )
     RETURNING o.*`,
    [orderId, status, occurredAt, RANKED_STATES],
  );
}

/** Replaces the tracking document. */
export function setTracking(q: Queryable, orderId: string, tracking: object): Promise<Order | null> {
  return one(q, "UPDATE orders SET tracking = $2, updated_at = now() WHERE id = $1 RETURNING *", [
    orderId,
    JSON.stringify(tracking),
  ]);
}

/**
 * Merges top-level keys into the tracking document in one statement, so two concurrent shipping updates
 * (keyed by parcel number) do not lose each other.
 */
export function mergeTracking(q: Queryable, orderId: string, patch: object): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET tracking = COALESCE(tracking, '{}'::jsonb) || $2::jsonb, updated_at = now()
     WHERE id = $1 RETURNING *`,
    [orderId, JSON.stringify(patch)],
  );
}

export function setWorkflow(q: Queryable, orderId: string, workflow: object): Promise<Order | null> {
  return one(q, "UPDATE orders SET workflow = $2, updated_at = now() WHERE id = $1 RETURNING *", [
    orderId,
    JSON.stringify(workflow),
  ]);
}

export async function listRecentOrdersForUser(q: Queryable, userId: string, limit = 10): Promise<Order[]> {
  const { rows } = await q.query(
    "SELECT * FROM orders WHERE requested_by = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
    [userId, limit],
  );
  return rows.map(mapOrder);
}
