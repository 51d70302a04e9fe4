/**
 * Deliveries whose signature verified but which the configured mapping could not read (`supplierEvents` in the
 * customer file): kept with their raw body until a corrected mapping reprocesses them. The id deduplicates a
 * redelivery: the supplier's event id when the mapping found one, else the body's hash.
 */
import type { Queryable, Row } from "../db.ts";

export interface ShapeField {
  path: string;
  type: string;
}

export interface DeliveryInfo {
  /** The signing scheme that verified it. */
  scheme: string;
  /** The delivery's id header (Standard Webhooks' `webhook-id`, or the configured one), if any. */
  deliveryId?: string;
  /** Unix seconds from the signed timestamp header, if any. */
  timestamp?: number;
  contentType?: string;
}

export interface NewUnreadable {
  id: string;
  delivery: DeliveryInfo;
  body: Buffer;
  reason: string;
  field: string | null;
  shapeKey: string;
  shape: { fields: readonly ShapeField[]; more: number };
}

export interface UnreadableEvent extends NewUnreadable {
  receivedAt: Date;
  reprocessedAt: Date | null;
  eventId: string | null;
  resolvedAt: Date | null;
}

function mapUnreadable(row: Row): UnreadableEvent {
  return {
    id: row.id,
    delivery: row.delivery,
    body: row.body,
    reason: row.reason,
    field: row.field,
    shapeKey: row.shape_key,
    shape: row.shape,
    receivedAt: row.received_at,
    reprocessedAt: row.reprocessed_at,
    eventId: row.event_id,
    resolvedAt: row.resolved_at,
  };
}

/** Stores it unless a delivery with this id is already kept; returns whether it was new. */
export async function insertUnreadable(q: Queryable, event: NewUnreadable): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO unreadable_events (id, delivery, body, reason, field, shape_key, shape)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (id) DO NOTHING`,
    [
      event.id,
      JSON.stringify(event.delivery),
      event.body,
      event.reason,
      event.field,
      event.shapeKey,
      JSON.stringify(event.shape),
    ],
  );
  return (rowCount ?? 0) > 0;
}

/** Still unreadable, oldest first, from `after` on (keyset: received_at, id); `since` bounds by arrival. */
export async function listOpenUnreadable(
  q: Queryable,
  options: { since?: Date; shapeKey?: string; after?: { receivedAt: Date; id: string }; limit: number },
): Promise<UnreadableEvent[]> {
  const { rows } = await q.query(
    `SELECT * FROM unreadable_events
     WHERE resolved_at IS NULL
       AND ($1::timestamptz IS NULL OR received_at >= $1)
       AND ($2::text IS NULL OR shape_key = $2)
       AND ($3::timestamptz IS NULL OR (received_at, id) > ($3, $4::text))
     ORDER BY received_at, id
     LIMIT $5`,
    [
      options.since ?? null,
      options.shapeKey ?? null,
      options.after?.receivedAt ?? null,
      options.after?.id ?? null,
      options.limit,
    ],
  );
  return rows.map(mapUnreadable);
}

/** Read after all: it became (or already was) the supplier event `eventId`. */
export async function markUnreadableResolved(q: Queryable, id: string, eventId: string): Promise<void> {
  await q.query(
    "UPDATE unreadable_events SET resolved_at = now(), event_id = $2 WHERE id = $1 AND resolved_at IS NULL",
    [id, eventId],
  );
}

/** Reprocessed and still unreadable: the reason the current mapping gives. */
export async function markUnreadableAgain(
  q: Queryable,
  id: string,
  reason: string,
  field: string | null,
): Promise<void> {
  await q.query(
    "UPDATE unreadable_events SET reprocessed_at = now(), reason = $2, field = $3 WHERE id = $1",
    [id, reason, field],
  );
}

export interface ShapeSummary {
  shapeKey: string;
  open: number;
  since: Date | null;
}

/** How many of each shape are still unreadable, and since when. */
export async function summariseOpenShapes(
  q: Queryable,
  shapeKeys: readonly string[],
): Promise<Map<string, ShapeSummary>> {
  const { rows } = await q.query<{ shape_key: string; open: string; since: Date | null }>(
    `SELECT shape_key, count(*) AS open, min(received_at) AS since FROM unreadable_events
     WHERE resolved_at IS NULL AND shape_key = ANY($1::text[]) GROUP BY shape_key`,
    [shapeKeys],
  );
  const out = new Map<string, ShapeSummary>();
  for (const key of shapeKeys) out.set(key, { shapeKey: key, open: 0, since: null });
  for (const r of rows) out.set(r.shape_key, { shapeKey: r.shape_key, open: Number(r.open), since: r.since });
  return out;
}
