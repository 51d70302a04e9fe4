/**
 * Supplier webhook events, stored once (the event id is the primary key) before the supplier gets its 2xx.
 * An event is matched to its order by correlation id: the order's own, or one an admin attached to it
 * (`order_aliases`, see order-aliases.ts). An event whose order is not known yet (its placement response has not
 * been recorded) is an orphan: `order_id` stays null until `attachOrphans` links it, or until it is reported as
 * unmatched.
 */

import type { JsonObject } from "../../orders/model/order.ts";
import type { Queryable, Row } from "../db.ts";
import { orderOfCorrelationSql } from "./order-aliases.ts";
import type { DeliveryInfo } from "./unreadable.ts";

export interface StoredEvent {
  id: string;
  correlationId: string;
  orderId: string | null;
  type: string;
  occurredAt: Date;
  payload: JsonObject;
  receivedAt: Date;
  postedAt: Date | null;
  /** Set before each post: a reply may exist in Slack for an event attempted but not marked posted. */
  postAttemptedAt: Date | null;
  replyTs: string | null;
  /**
   * The milestone its reply announced (`src/orders/updates/verbosity.ts`), or null: shown as a plain update, or
   * kept out of the thread (posted with no `replyTs`).
   */
  replyMilestone: string | null;
  postError: JsonObject | null;
  orphanReportedAt: Date | null;
  /** The body as the supplier sent it (null for events stored before it was kept). */
  rawBody: Buffer | null;
  delivery: DeliveryInfo | null;
}

export interface NewEvent {
  id: string;
  /**
   * The key the event is matched to its order by: the supplier's correlation id, or, for an event that names only
   * the order's document number, `edn:` + that number (webhooks/match-key.ts).
   */
  correlationId: string;
  type: string;
  occurredAt: Date | string;
  /** The event in our own format (what the configured mapping made of the supplier's body). */
  payload: object;
  /** The body exactly as the supplier sent it, and the headers that identify the delivery. */
  rawBody?: Buffer;
  delivery?: DeliveryInfo;
}

export function mapEvent(row: Row): StoredEvent {
  return {
    id: row.id,
    correlationId: row.correlation_id,
    orderId: row.order_id,
    type: row.type,
    occurredAt: row.occurred_at,
    payload: row.payload,
    receivedAt: row.received_at,
    postedAt: row.posted_at,
    postAttemptedAt: row.post_attempted_at,
    replyTs: row.reply_ts,
    replyMilestone: row.reply_milestone ?? null,
    postError: row.post_error,
    orphanReportedAt: row.orphan_reported_at,
    rawBody: row.raw_body ?? null,
    delivery: row.delivery ?? null,
  };
}

/**
 * Stores the event unless its id is already stored (a redelivery). The order is looked up by correlation id
 * (its own or an attached one) in the same statement; `orderId` is null for an orphan. For a redelivery,
 * `orderId` is the stored event's.
 */
export async function insertEventIfNew(
  q: Queryable,
  event: NewEvent,
): Promise<{ inserted: boolean; orderId: string | null }> {
  const { rows } = await q.query<{ order_id: string | null }>(
    `INSERT INTO supplier_events (id, correlation_id, order_id, type, occurred_at, payload, raw_body, delivery)
     VALUES ($1, $2, ${orderOfCorrelationSql("$2")}, $3, $4, $5, $6, $7)
     ON CONFLICT (id) DO NOTHING
     RETURNING order_id`,
    [
      event.id,
      event.correlationId,
      event.type,
      event.occurredAt,
      JSON.stringify(event.payload),
      event.rawBody ?? null,
      event.delivery ? JSON.stringify(event.delivery) : null,
    ],
  );
  if (rows[0]) return { inserted: true, orderId: rows[0].order_id };
  const existing = await q.query<{ order_id: string | null }>(
    "SELECT order_id FROM supplier_events WHERE id = $1",
    [event.id],
  );
  return { inserted: false, orderId: existing.rows[0]?.order_id ?? null };
}

/**
 * `insertEventIfNew` for several events in one statement (the webhook receiver's group commit). Ids must be
 * distinct. `orderId`, when given, is the order found by other means (the document number) for an event whose
 * correlation id matches none. Returns, per id, whether it was inserted and the order it belongs to (a redelivery's stored one).
 */
export async function insertEventsIfNew(
  q: Queryable,
  events: ReadonlyArray<NewEvent & { orderId?: string | null }>,
): Promise<Map<string, { inserted: boolean; orderId: string | null }>> {
  const result = new Map<string, { inserted: boolean; orderId: string | null }>();
  if (events.length === 0) return result;
  const { rows } = await q.query<{ id: string; order_id: string | null }>(
    `INSERT INTO supplier_events (id, correlation_id, order_id, type, occurred_at, payload, raw_body, delivery)
     SELECT e.id, e.correlation_id, COALESCE(o.id, a.order_id, e.order_id), e.type, e.occurred_at, e.payload,
            e.raw_body, e.delivery
     FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::jsonb[], $6::bytea[], $7::jsonb[],
                 $8::text[])
       WITH ORDINALITY AS e(id, correlation_id, type, occurred_at, payload, raw_body, delivery, order_id, n)
     LEFT JOIN orders o ON o.correlation_id = e.correlation_id
     LEFT JOIN order_aliases a ON a.correlation_id = e.correlation_id
     ORDER BY e.n
     ON CONFLICT (id) DO NOTHING
     RETURNING id, order_id`,
    [
      events.map((e) => e.id),
      events.map((e) => e.correlationId),
      events.map((e) => e.type),
      events.map((e) => (e.occurredAt instanceof Date ? e.occurredAt.toISOString() : e.occurredAt)),
      events.map((e) => JSON.stringify(e.payload)),
      events.map((e) => e.rawBody ?? null),
      events.map((e) => (e.delivery ? JSON.stringify(e.delivery) : null)),
      events.map((e) => e.orderId ?? null),
    ],
  );
  for (const row of rows) result.set(row.id, { inserted: true, orderId: row.order_id });
  const known = events.map((e) => e.id).filter((id) => !result.has(id));
  if (known.length > 0) {
    const existing = await q.query<{ id: string; order_id: string | null }>(
      "SELECT id, order_id FROM supplier_events WHERE id = ANY($1::text[])",
      [known],
    );
    for (const row of existing.rows) result.set(row.id, { inserted: false, orderId: row.order_id });
  }
  return result;
}

export async function getEvent(q: Queryable, id: string): Promise<StoredEvent | null> {
  const { rows } = await q.query("SELECT * FROM supplier_events WHERE id = $1", [id]);
  return rows[0] ? mapEvent(rows[0]) : null;
}

/** Links the orphans with this correlation id to the order; returns their ids (oldest first) to enqueue. */
export async function attachOrphans(q: Queryable, correlationId: string, orderId: string): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `WITH attached AS (
       UPDATE supplier_events SET order_id = $2
       WHERE correlation_id = $1 AND order_id IS NULL
       RETURNING id, occurred_at
     )
     SELECT id FROM attached ORDER BY occurred_at, id`,
    [correlationId, orderId],
  );
  return rows.map((r) => r.id);
}

/**
 * Undoes an attach: the order's events of `correlationId` are orphans again (reported: a new alert is opened for
 * them by the caller), with their posting forgotten, so an attach to the right order posts them in its thread.
 * Events that name the order's document number themselves (`edn:<number>` keys, or `externalDocumentNumber` in
 * the event) stay: the order would have had them anyway. Returns the ids made orphans, oldest first, and how
 * many of them had been posted in the order's thread.
 */
export async function detachEvents(
  q: Queryable,
  link: { correlationId: string; orderId: string; externalDocumentNumber: string },
): Promise<{ ids: string[]; posted: number }> {
  const { rows } = await q.query<{ id: string; was_posted: boolean }>(
    `WITH target AS (
       SELECT id, reply_ts IS NOT NULL AS was_posted FROM supplier_events
       WHERE correlation_id = $1 AND order_id = $2
         AND correlation_id <> 'edn:' || $3
         AND (payload->>'externalDocumentNumber') IS DISTINCT FROM $3
       FOR UPDATE
     ), detached AS (
       UPDATE supplier_events e SET order_id = NULL, posted_at = NULL, post_attempted_at = NULL, reply_ts = NULL,
         reply_milestone = NULL, post_error = NULL, orphan_reported_at = now()
       FROM target t WHERE e.id = t.id
       RETURNING e.id, e.occurred_at, t.was_posted
     )
     SELECT id, was_posted FROM detached ORDER BY occurred_at, id`,
    [link.correlationId, link.orderId, link.externalDocumentNumber],
  );
  return { ids: rows.map((r) => r.id), posted: rows.filter((r) => r.was_posted).length };
}

/**
 * `attachOrphans` for every correlation id of the order (its own, and those attached to it that are no other
 * order's own), in one statement; returns how many were linked.
 */
export async function attachOrphansOfOrder(q: Queryable, orderId: string): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE supplier_events e SET order_id = $1
      WHERE e.order_id IS NULL AND e.correlation_id IN (
        SELECT correlation_id FROM orders WHERE id = $1 AND correlation_id IS NOT NULL
        UNION ALL
        SELECT a.correlation_id FROM order_aliases a
         WHERE a.order_id = $1 AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.correlation_id = a.correlation_id))`,
    [orderId],
  );
  return rowCount ?? 0;
}

/** The order's events not yet posted to Slack, in the order they happened. */
export async function listUnpostedForOrder(q: Queryable, orderId: string): Promise<StoredEvent[]> {
  const { rows } = await q.query(
    "SELECT * FROM supplier_events WHERE order_id = $1 AND posted_at IS NULL ORDER BY occurred_at, id",
    [orderId],
  );
  return rows.map(mapEvent);
}

export async function listEventsForOrder(q: Queryable, orderId: string): Promise<StoredEvent[]> {
  const { rows } = await q.query(
    "SELECT * FROM supplier_events WHERE order_id = $1 ORDER BY occurred_at, id",
    [orderId],
  );
  return rows.map(mapEvent);
}

/**
 * Records the threaded reply (`replyTs` null: the event was handled without one). Returns false when the event
 * was already posted (a retried job).
 */
export async function markPosted(
  q: Queryable,
  eventId: string,
  replyTs: string | null,
  milestone: string | null = null,
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE supplier_events SET posted_at = now(), reply_ts = $2, reply_milestone = $3, post_error = NULL
     WHERE id = $1 AND posted_at IS NULL`,
    [eventId, replyTs, milestone],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Ends the posting of an event Slack will not take in any form, keeping why in `post_error`: the order's later
 * updates then go out. Returns false when it was already posted.
 */
export async function markPostSkipped(q: Queryable, eventId: string, error: object): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE supplier_events SET posted_at = now(), reply_ts = NULL, post_error = $2
     WHERE id = $1 AND posted_at IS NULL`,
    [eventId, JSON.stringify(error)],
  );
  return (rowCount ?? 0) > 0;
}

/** Recorded before each post, so a retry knows Slack may already show the reply (see post-update.ts). */
export async function markPostAttempted(q: Queryable, eventId: string): Promise<void> {
  await q.query("UPDATE supplier_events SET post_attempted_at = now() WHERE id = $1", [eventId]);
}

/** Keeps the last posting error for support; the job's retry policy decides what happens next. */
export async function markPostError(q: Queryable, eventId: string, error: object): Promise<void> {
  await q.query("UPDATE supplier_events SET post_error = $2 WHERE id = $1", [eventId, JSON.stringify(error)]);
}

/** Orphans received before `receivedBefore` and not reported yet, oldest first. */
export async function listOrphansOlderThan(
  q: Queryable,
  receivedBefore: Date,
  limit = 100,
): Promise<StoredEvent[]> {
  const { rows } = await q.query(
    `SELECT * FROM supplier_events
     WHERE order_id IS NULL AND orphan_reported_at IS NULL AND received_at < $1
     ORDER BY received_at, id LIMIT $2`,
    [receivedBefore, limit],
  );
  return rows.map(mapEvent);
}

/** Returns false when it was already reported (another replica got there first). */
export async function markOrphanReported(q: Queryable, eventId: string): Promise<boolean> {
  const { rowCount } = await q.query(
    "UPDATE supplier_events SET orphan_reported_at = now() WHERE id = $1 AND orphan_reported_at IS NULL",
    [eventId],
  );
  return (rowCount ?? 0) > 0;
}
