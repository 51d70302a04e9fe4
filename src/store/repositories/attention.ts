/**
 * Attention items (src/orders/operations/types.ts): what needs an operator, its admin alert, and how it was
 * resolved. Resolving is one conditional UPDATE (`resolved_at IS NULL`): of two clicks, one wins.
 */
import {
  type AttentionItem,
  type AttentionKind,
  type AttentionList,
  type Resolution,
  type StoredAlert,
  storedAlertSchema,
} from "../../orders/operations/types.ts";
import type { Queryable, Row } from "../db.ts";

export function mapAttention(row: Row): AttentionItem {
  return {
    id: row.id,
    kind: row.kind,
    subject: row.subject,
    alert: storedAlertSchema.parse(row.alert),
    openedAt: row.opened_at,
    alertChannelId: row.alert_channel_id,
    alertTs: row.alert_ts,
    resolution: row.resolution,
    resolvedBy: row.resolved_by,
    resolvedAt: row.resolved_at,
    resolutionDetail: row.resolution_detail,
    summarizedIn: row.summarized_in ?? null,
    detachedBy: row.detached_by ?? null,
    detachedAt: row.detached_at ?? null,
    detachDetail: row.detach_detail ?? null,
  };
}

async function one(q: Queryable, text: string, params: unknown[]): Promise<AttentionItem | null> {
  const { rows } = await q.query(text, params);
  return rows[0] ? mapAttention(rows[0]) : null;
}

/**
 * Opens an item for this kind and subject, or returns the one already open (`created: false`), so the same
 * trouble reported twice (a second sweep, another replica) stays one item with one alert.
 */
export async function openAttention(
  q: Queryable,
  item: { id: string; kind: AttentionKind; subject: string; alert: StoredAlert },
): Promise<{ item: AttentionItem; created: boolean }> {
  const inserted = await one(
    q,
    `INSERT INTO attention_items (id, kind, subject, alert) VALUES ($1, $2, $3, $4)
     ON CONFLICT (kind, subject) WHERE resolved_at IS NULL DO NOTHING RETURNING *`,
    [item.id, item.kind, item.subject, JSON.stringify(item.alert)],
  );
  if (inserted) return { item: inserted, created: true };
  const open = await one(
    q,
    "SELECT * FROM attention_items WHERE kind = $1 AND subject = $2 AND resolved_at IS NULL",
    [item.kind, item.subject],
  );
  // Resolved between the two statements: open a fresh one.
  if (!open) return openAttention(q, item);
  return { item: open, created: false };
}

/** Records where the item's alert was posted. */
export function setAttentionAlert(
  q: Queryable,
  id: string,
  where: { channelId: string; ts: string },
): Promise<AttentionItem | null> {
  return one(q, "UPDATE attention_items SET alert_channel_id = $2, alert_ts = $3 WHERE id = $1 RETURNING *", [
    id,
    where.channelId,
    where.ts,
  ]);
}

/**
 * Marks the item's alert attempted (the first attempt's time stands); returns when an earlier attempt was made,
 * null if this is the first.
 */
export async function markAlertAttempted(q: Queryable, id: string): Promise<Date | null> {
  const { rows } = await q.query(
    `UPDATE attention_items a SET alert_attempted_at = COALESCE(b.before, now())
       FROM (SELECT id, alert_attempted_at AS before FROM attention_items WHERE id = $1 FOR UPDATE) b
      WHERE a.id = b.id RETURNING b.before`,
    [id],
  );
  return (rows[0]?.before as Date | null | undefined) ?? null;
}

export function getAttention(q: Queryable, id: string): Promise<AttentionItem | null> {
  return one(q, "SELECT * FROM attention_items WHERE id = $1", [id]);
}

/** The item open for this kind and subject, if any. */
export function findOpenAttention(
  q: Queryable,
  kind: AttentionKind,
  subject: string,
): Promise<AttentionItem | null> {
  return one(q, "SELECT * FROM attention_items WHERE kind = $1 AND subject = $2 AND resolved_at IS NULL", [
    kind,
    subject,
  ]);
}

/** Locks the item until the transaction ends: a second click on it waits, then finds it resolved. */
export function getAttentionForUpdate(q: Queryable, id: string): Promise<AttentionItem | null> {
  return one(q, "SELECT * FROM attention_items WHERE id = $1 FOR UPDATE", [id]);
}

/** The open item of this kind and subject, locked until the transaction ends (null when none is open). */
export function findOpenAttentionForUpdate(
  q: Queryable,
  kind: AttentionItem["kind"],
  subject: string,
): Promise<AttentionItem | null> {
  return one(
    q,
    "SELECT * FROM attention_items WHERE kind = $1 AND subject = $2 AND resolved_at IS NULL FOR UPDATE",
    [kind, subject],
  );
}

/** Resolves an open item; null when it was resolved already (someone else's click got there first). */
export function resolveAttention(
  q: Queryable,
  id: string,
  resolution: { resolution: Resolution; by: string; detail?: Record<string, unknown> | undefined },
): Promise<AttentionItem | null> {
  return one(
    q,
    `UPDATE attention_items SET resolution = $2, resolved_by = $3, resolved_at = now(), resolution_detail = $4
     WHERE id = $1 AND resolved_at IS NULL RETURNING *`,
    [id, resolution.resolution, resolution.by, resolution.detail ? JSON.stringify(resolution.detail) : null],
  );
}

/** Open items whose trouble is still there (the order still failed, events still unposted or orphaned). */
const STILL_OPEN = `a.resolved_at IS NULL AND (
    (a.kind = 'failed_order' AND EXISTS (SELECT 1 FROM orders o WHERE o.id = a.subject AND o.status = 'failed'))
    OR (a.kind = 'unposted_updates' AND EXISTS (
      SELECT 1 FROM supplier_events e WHERE e.order_id = a.subject AND e.posted_at IS NULL))
    OR (a.kind = 'orphan_events' AND EXISTS (
      SELECT 1 FROM supplier_events e WHERE e.correlation_id = a.subject AND e.order_id IS NULL))
    OR (a.kind = 'unreadable_events' AND EXISTS (
      SELECT 1 FROM unreadable_events u WHERE u.shape_key = a.subject AND u.resolved_at IS NULL))
    OR (a.kind = 'orphan_summary' AND EXISTS (
      SELECT 1 FROM attention_items c JOIN supplier_events e ON e.correlation_id = c.subject AND e.order_id IS NULL
      WHERE c.summarized_in = a.id AND c.resolved_at IS NULL))
    OR a.kind NOT IN ('failed_order', 'unposted_updates', 'orphan_events', 'orphan_summary', 'unreadable_events')
  )`;

/**
 * Failed orders first, then unposted updates, then the rest (a storm of orphans never pushes an order out of the
 * list); newest first within a kind.
 */
const BY_URGENCY = `CASE a.kind WHEN 'failed_order' THEN 0 WHEN 'unposted_updates' THEN 1 ELSE 2 END,
  a.opened_at DESC, a.id DESC`;

/**
 * App Home's "Needs attention": the first `limit` open items by urgency (orphans a summary stands for are not
 * listed one by one: the summary is), and how many there are of each kind (every orphan group counted).
 */
export async function listOpenAttention(q: Queryable, limit: number): Promise<AttentionList> {
  const { rows } = await q.query(
    `SELECT a.* FROM attention_items a WHERE ${STILL_OPEN} AND a.summarized_in IS NULL
     ORDER BY ${BY_URGENCY} LIMIT $1`,
    [limit],
  );
  return { items: rows.map(mapAttention), counts: await countOpenAttention(q) };
}

/** Every open item, summarized orphans included, by urgency, at most `limit` ("See all" on App Home). */
export async function listAllOpenAttention(q: Queryable, limit: number): Promise<AttentionList> {
  const { rows } = await q.query(
    `SELECT a.* FROM attention_items a WHERE ${STILL_OPEN} AND a.kind <> 'orphan_summary'
     ORDER BY ${BY_URGENCY} LIMIT $1`,
    [limit],
  );
  return { items: rows.map(mapAttention), counts: await countOpenAttention(q) };
}

async function countOpenAttention(q: Queryable): Promise<Record<AttentionKind, number>> {
  const counted = await q.query<{ kind: AttentionKind; n: string | number }>(
    `SELECT a.kind, count(*) AS n FROM attention_items a
     WHERE ${STILL_OPEN} AND a.kind <> 'orphan_summary' GROUP BY a.kind`,
  );
  const counts: Record<AttentionKind, number> = {
    failed_order: 0,
    unposted_updates: 0,
    orphan_events: 0,
    unreadable_events: 0,
    orphan_summary: 0,
    stalled_order: 0,
    at_risk_order: 0,
  };
  for (const row of counted.rows) counts[row.kind] = Number(row.n);
  return counts;
}

/**
 * Opens an orphan item as part of a summary (no alert of its own), unless one is open for that correlation id
 * already (it keeps its own alert). Returns whether it was opened.
 */
export async function openSummarizedAttention(
  q: Queryable,
  item: { id: string; subject: string; alert: StoredAlert; summarizedIn: string },
): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO attention_items (id, kind, subject, alert, summarized_in) VALUES ($1, 'orphan_events', $2, $3, $4)
     ON CONFLICT (kind, subject) WHERE resolved_at IS NULL DO NOTHING RETURNING id`,
    [item.id, item.subject, JSON.stringify(item.alert), item.summarizedIn],
  );
  return rows.length === 1;
}

/** How many open orphan items a summary stands for, and the first few correlation ids (oldest first). */
export async function summarizedOrphans(
  q: Queryable,
  summaryId: string,
  first: number,
): Promise<{ count: number; firstIds: string[] }> {
  const { rows } = await q.query<{ subject: string; n: string | number }>(
    `SELECT subject, count(*) OVER () AS n FROM attention_items
     WHERE summarized_in = $1 AND resolved_at IS NULL ORDER BY opened_at, id LIMIT $2`,
    [summaryId, first],
  );
  return { count: Number(rows[0]?.n ?? 0), firstIds: rows.map((r) => r.subject) };
}

/** Rewrites an item's stored alert (a summary that grew). */
export function setAttentionAlertText(
  q: Queryable,
  id: string,
  alert: StoredAlert,
): Promise<AttentionItem | null> {
  return one(q, "UPDATE attention_items SET alert = $2 WHERE id = $1 RETURNING *", [
    id,
    JSON.stringify(alert),
  ]);
}

/** "Ignore all": resolves every open orphan item of the summary as ignored; returns how many. */
export async function ignoreSummarized(q: Queryable, summaryId: string, by: string): Promise<number> {
  const { rows } = await q.query(
    `UPDATE attention_items SET resolution = 'ignored', resolved_by = $2, resolved_at = now()
     WHERE summarized_in = $1 AND resolved_at IS NULL RETURNING id`,
    [summaryId, by],
  );
  return rows.length;
}

/**
 * Claims open items whose alert has not gone out (the post failed) and that nobody claimed in the last
 * `reclaimAfterMs`, oldest first: the caller posts them. One statement, so two replicas never claim the same one.
 */
export async function claimUnsentAlerts(
  q: Queryable,
  options: { graceMs: number; reclaimAfterMs: number; limit: number },
): Promise<AttentionItem[]> {
  const { rows } = await q.query(
    `UPDATE attention_items SET alert_claimed_at = now()
     WHERE id IN (
       SELECT id FROM attention_items
       WHERE alert_ts IS NULL AND resolved_at IS NULL AND summarized_in IS NULL
         AND opened_at < now() - make_interval(secs => $1::double precision / 1000)
         AND (alert_claimed_at IS NULL OR alert_claimed_at < now() - make_interval(secs => $2::double precision / 1000))
       ORDER BY opened_at LIMIT $3
       FOR UPDATE SKIP LOCKED
     )
     RETURNING *`,
    [options.graceMs, options.reclaimAfterMs, options.limit],
  );
  return rows.map(mapAttention);
}

/** Records that the attach resolving the item was undone; null when it was already (the row is locked first). */
export function markDetached(
  q: Queryable,
  id: string,
  detach: { by: string; detail: Record<string, unknown> },
): Promise<AttentionItem | null> {
  return one(
    q,
    `UPDATE attention_items SET detached_by = $2, detached_at = now(), detach_detail = $3
     WHERE id = $1 AND resolution = 'attached' AND detached_at IS NULL RETURNING *`,
    [id, detach.by, JSON.stringify(detach.detail)],
  );
}

/** Adds to what the detach recorded (the threaded note's ts, once it is posted). */
export function addDetachDetail(
  q: Queryable,
  id: string,
  detail: Record<string, unknown>,
): Promise<AttentionItem | null> {
  return one(
    q,
    "UPDATE attention_items SET detach_detail = detach_detail || $2::jsonb WHERE id = $1 RETURNING *",
    [id, JSON.stringify(detail)],
  );
}

/**
 * Claims one open item whose alert has not gone out, unless someone claimed it in the last `reclaimAfterMs`
 * (the periodic pass over unsent alerts, another replica): the caller posts it. Null when it is not to be posted.
 */
export function claimUnsentAlert(
  q: Queryable,
  id: string,
  reclaimAfterMs: number,
): Promise<AttentionItem | null> {
  return one(
    q,
    `UPDATE attention_items SET alert_claimed_at = now()
     WHERE id = $1 AND alert_ts IS NULL AND resolved_at IS NULL
       AND (alert_claimed_at IS NULL OR alert_claimed_at < now() - make_interval(secs => $2::double precision / 1000))
     RETURNING *`,
    [id, reclaimAfterMs],
  );
}

/** Gives a claim back (the post failed): the next try need not wait for the claim to age. */
export async function releaseAlertClaim(q: Queryable, id: string): Promise<void> {
  await q.query("UPDATE attention_items SET alert_claimed_at = NULL WHERE id = $1 AND alert_ts IS NULL", [
    id,
  ]);
}
