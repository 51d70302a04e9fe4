/**
 * Needed-by bookkeeping (migration 017): an order's at-risk state, its delivery's lateness, and the notices each
 * change of those produces (order_date_notices), posted by the post-update job once each.
 */
import type { Order } from "../../orders/model/order.ts";
import type { Queryable } from "../db.ts";
import { isoDate, mapOrder } from "./order-row.ts";

export const DATE_NOTICE_KINDS = ["at_risk", "back_on_track", "delivered_late"] as const;
export type DateNoticeKind = (typeof DATE_NOTICE_KINDS)[number];

export interface DateNotice {
  orderId: string;
  seq: number;
  kind: DateNoticeKind;
  expectedDelivery: string | null;
  neededBy: string | null;
  lateDays: number | null;
  createdAt: Date;
  postAttemptedAt: Date | null;
  postedAt: Date | null;
  replyTs: string | null;
  dmSentAt: Date | null;
}

function mapNotice(row: Record<string, unknown>): DateNotice {
  return {
    orderId: row.order_id as string,
    seq: Number(row.seq),
    kind: row.kind as DateNoticeKind,
    expectedDelivery: isoDate(row.expected_delivery),
    neededBy: isoDate(row.needed_by),
    lateDays: row.late_days == null ? null : Number(row.late_days),
    createdAt: row.created_at as Date,
    postAttemptedAt: (row.post_attempted_at as Date | null) ?? null,
    postedAt: (row.posted_at as Date | null) ?? null,
    replyTs: (row.reply_ts as string | null) ?? null,
    dmSentAt: (row.dm_sent_at as Date | null) ?? null,
  };
}

async function oneOrder(q: Queryable, text: string, params: unknown[]): Promise<Order | null> {
  const { rows } = await q.query(text, params);
  return rows[0] ? mapOrder(rows[0]) : null;
}

/** Placed knowing it would arrive late (the agent submitted anyway, or a workflow step): at risk from the start. */
export async function markAtRiskFromStart(q: Queryable, order: Order, at: Date): Promise<Order> {
  const updated = await oneOrder(
    q,
    "UPDATE orders SET at_risk_since = $2 WHERE id = $1 AND at_risk_since IS NULL RETURNING *",
    [order.id, at],
  );
  return updated ?? order;
}

/** A resubmitted order's dates, recomputed from its corrected draft as for a new order (inside its transaction). */
export function setResubmittedDates(
  q: Queryable,
  orderId: string,
  dates: {
    neededBy: string | null;
    expectedDelivery: string | null;
    expectedDeliverySource: "lead_time" | "supplier" | null;
    atRiskSince: Date | null;
  },
): Promise<Order | null> {
  return oneOrder(
    q,
    `UPDATE orders SET needed_by = $2::date, expected_delivery = $3::date, expected_delivery_source = $4,
       at_risk_since = $5
     WHERE id = $1 RETURNING *`,
    [orderId, dates.neededBy, dates.expectedDelivery, dates.expectedDeliverySource, dates.atRiskSince],
  );
}

/** The order's expected delivery and at-risk state as an applied event leaves them (inside its transaction). */
export function setOrderDates(
  q: Queryable,
  orderId: string,
  dates: {
    expectedDelivery: string | null;
    expectedDeliverySource: "lead_time" | "supplier" | null;
    atRiskSince: Date | null;
  },
): Promise<Order | null> {
  return oneOrder(
    q,
    `UPDATE orders SET expected_delivery = $2::date, expected_delivery_source = $3, at_risk_since = $4
     WHERE id = $1 RETURNING *`,
    [orderId, dates.expectedDelivery, dates.expectedDeliverySource, dates.atRiskSince],
  );
}

/** Delivered: on which day, and how late (null when it had no needed-by date). Set once. */
export function setDelivered(
  q: Queryable,
  orderId: string,
  deliveredOn: string,
  lateDays: number | null,
): Promise<Order | null> {
  return oneOrder(
    q,
    `UPDATE orders SET delivered_on = $2::date, late_days = $3, at_risk_since = NULL
     WHERE id = $1 AND delivered_on IS NULL RETURNING *`,
    [orderId, deliveredOn, lateDays],
  );
}

/** Records a change to tell, numbered after the order's last one (the caller holds the order's row lock). */
export async function addDateNotice(
  q: Queryable,
  notice: {
    orderId: string;
    kind: DateNoticeKind;
    expectedDelivery: string | null;
    neededBy: string | null;
    lateDays?: number | null;
    at: Date;
  },
): Promise<DateNotice> {
  const { rows } = await q.query(
    `INSERT INTO order_date_notices (order_id, seq, kind, expected_delivery, needed_by, late_days, created_at)
     SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3::date, $4::date, $5, $6
     FROM order_date_notices WHERE order_id = $1
     RETURNING *`,
    [
      notice.orderId,
      notice.kind,
      notice.expectedDelivery,
      notice.neededBy,
      notice.lateDays ?? null,
      notice.at,
    ],
  );
  return mapNotice(rows[0] as Record<string, unknown>);
}

/** Whether the order was ever told this kind of change (a notice recorded, posted or not). */
export async function hasNoticeOfKind(q: Queryable, orderId: string, kind: DateNoticeKind): Promise<boolean> {
  const { rows } = await q.query(
    "SELECT 1 FROM order_date_notices WHERE order_id = $1 AND kind = $2 LIMIT 1",
    [orderId, kind],
  );
  return rows.length > 0;
}

export async function listUnpostedNotices(q: Queryable, orderId: string): Promise<DateNotice[]> {
  const { rows } = await q.query(
    `SELECT * FROM order_date_notices WHERE order_id = $1 AND (posted_at IS NULL OR (kind = 'at_risk' AND dm_sent_at IS NULL))
     ORDER BY seq`,
    [orderId],
  );
  return rows.map(mapNotice);
}

export async function listNotices(q: Queryable, orderId: string): Promise<DateNotice[]> {
  const { rows } = await q.query("SELECT * FROM order_date_notices WHERE order_id = $1 ORDER BY seq", [
    orderId,
  ]);
  return rows.map(mapNotice);
}

/**
 * Records that the notice's post is being attempted, by the database's clock: a retry looks for the post in the
 * thread from then on, against Slack's timestamps (as for every other post), whatever the app's clock says.
 */
export async function markNoticeAttempted(q: Queryable, orderId: string, seq: number): Promise<void> {
  await q.query("UPDATE order_date_notices SET post_attempted_at = now() WHERE order_id = $1 AND seq = $2", [
    orderId,
    seq,
  ]);
}

export async function markNoticePosted(
  q: Queryable,
  orderId: string,
  seq: number,
  ts: string | null,
  at: Date,
): Promise<void> {
  await q.query(
    "UPDATE order_date_notices SET posted_at = $3, reply_ts = $4 WHERE order_id = $1 AND seq = $2 AND posted_at IS NULL",
    [orderId, seq, at, ts],
  );
}

/** Claims the requester's DM for a notice: true for the one caller that should send it. */
export async function claimNoticeDm(q: Queryable, orderId: string, seq: number, at: Date): Promise<boolean> {
  const { rows } = await q.query(
    "UPDATE order_date_notices SET dm_sent_at = $3 WHERE order_id = $1 AND seq = $2 AND dm_sent_at IS NULL RETURNING seq",
    [orderId, seq, at],
  );
  return rows.length > 0;
}

export interface OnTimeRow {
  profile: string;
  /** Orders with a needed-by date delivered in the period. */
  delivered: number;
  /** Of those, delivered on or before it. */
  onTime: number;
}

/** Deliveries of orders with a needed-by date, delivered on a day in [from, to), by profile. */
export async function onTimeByProfile(q: Queryable, from: string, to: string): Promise<OnTimeRow[]> {
  const { rows } = await q.query(
    `SELECT profile, count(*)::int AS delivered, count(*) FILTER (WHERE late_days = 0)::int AS on_time
       FROM orders
      WHERE needed_by IS NOT NULL AND delivered_on >= $1::date AND delivered_on < $2::date
      GROUP BY profile ORDER BY profile`,
    [from, to],
  );
  return rows.map((r) => ({
    profile: r.profile as string,
    delivered: Number(r.delivered),
    onTime: Number(r.on_time),
  }));
}
