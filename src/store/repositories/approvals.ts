/**
 * Approvals in the store: what an order waiting for approval asked for (`orders.approval`), the decision (one
 * conditional UPDATE: only an order still `awaiting_approval` is decided, so the first decision wins), and the
 * approvers' DMs (`approval_messages`), each updated with the decision and reminded once (claimed, then recorded as
 * sent). Each post the approval makes is recorded as attempted before Slack is called (`approval_dm_attempts`, with
 * the DM's claim: approval-dm-claims.ts; `remind_attempted_at`, `approval_announce_attempted_at`), so a retry after a
 * lost answer looks for it first.
 * Like orders.ts, every function runs one statement on the `Queryable` it is given.
 */
import type { ApprovalOutcome, ApprovalRequest, OrderApproval } from "../../orders/model/approval.ts";
import type { Order } from "../../orders/model/order.ts";
import type { Queryable, Row } from "../db.ts";
import { mapOrder } from "./order-row.ts";

export type { ApprovalOutcome, ApprovalRequest, OrderApproval } from "../../orders/model/approval.ts";

/** Reads the approval columns of an order row (null for an order that never needed approval). */
export function mapApproval(row: Row): OrderApproval | null {
  const request = row.approval as ApprovalRequest | null | undefined;
  if (!request) return null;
  return {
    ...request,
    decidedBy: row.approval_decided_by ?? null,
    decidedAt: row.approval_decided_at ?? null,
    reason: row.approval_reason ?? null,
    announcedAt: row.approval_announced_at ?? null,
  };
}

async function one(q: Queryable, text: string, params: unknown[]): Promise<Order | null> {
  const { rows } = await q.query(text, params);
  return rows[0] ? mapOrder(rows[0]) : null;
}

/** Records what an order just stored as `awaiting_approval` asks for (same transaction as the insert). */
export function setApprovalRequest(
  q: Queryable,
  orderId: string,
  request: ApprovalRequest,
): Promise<Order | null> {
  return one(q, "UPDATE orders SET approval = $2 WHERE id = $1 RETURNING *", [
    orderId,
    JSON.stringify(request),
  ]);
}

/**
 * A resubmitted order starts a new approval round (`request`, status `awaiting_approval`), or leaves approval
 * behind (`null`: it needs none now). The previous round's decision and DMs are forgotten.
 */
export async function restartApproval(
  q: Queryable,
  orderId: string,
  request: ApprovalRequest | null,
): Promise<Order | null> {
  await q.query("DELETE FROM approval_messages WHERE order_id = $1", [orderId]);
  await q.query("DELETE FROM approval_dm_failures WHERE order_id = $1", [orderId]);
  await q.query("DELETE FROM approval_dm_attempts WHERE order_id = $1", [orderId]);
  return one(
    q,
    `UPDATE orders SET approval = $2, approval_decided_by = NULL, approval_decided_at = NULL,
       approval_reason = NULL, approval_announced_at = NULL, approval_announce_attempted_at = NULL,
       approval_counted_at = NULL,
       status = CASE WHEN $2::jsonb IS NULL THEN status ELSE 'awaiting_approval' END, updated_at = now()
     WHERE id = $1 RETURNING *`,
    [orderId, request === null ? null : JSON.stringify(request)],
  );
}

const STATUS_AFTER: Record<ApprovalOutcome, string> = {
  approved: "queued",
  rejected: "rejected_by_approver",
  expired: "approval_expired",
};

/**
 * Decides an order still waiting for approval: approved → `queued`, rejected → `rejected_by_approver`, expired →
 * `approval_expired`, with who, when and why. Returns null when the order was not waiting any more (decided or
 * expired before): the caller must not act on it, which is what makes the first decision win.
 */
export function decideApprovalRow(
  q: Queryable,
  orderId: string,
  decision: { outcome: ApprovalOutcome; by: string | null; at: Date; reason: string | null },
): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET status = $2, status_at = now(), approval_decided_by = $3, approval_decided_at = $4,
       approval_reason = $5, updated_at = now()
     WHERE id = $1 AND status = 'awaiting_approval' RETURNING *`,
    [orderId, STATUS_AFTER[decision.outcome], decision.by, decision.at, decision.reason],
  );
}

/** Marks the decision as told in the thread; null when it was told before. */
export function markApprovalAnnounced(q: Queryable, orderId: string): Promise<Order | null> {
  return one(
    q,
    `UPDATE orders SET approval_announced_at = now(), updated_at = now()
     WHERE id = $1 AND approval_announced_at IS NULL RETURNING *`,
    [orderId],
  );
}

/**
 * Records that the decision is about to be told in the order's thread (before Slack is called); returns when an
 * earlier attempt was recorded (its answer, or its record, may have been lost: look for the reply before posting
 * again), or null for the first attempt.
 */
export async function markAnnounceAttempted(q: Queryable, orderId: string): Promise<Date | null> {
  const { rows } = await q.query(
    `UPDATE orders o SET approval_announce_attempted_at = COALESCE(b.before, now())
       FROM (SELECT id, approval_announce_attempted_at AS before FROM orders WHERE id = $1 FOR UPDATE) b
      WHERE o.id = b.id RETURNING b.before`,
    [orderId],
  );
  return (rows[0]?.before as Date | null | undefined) ?? null;
}

/**
 * Marks the order's current approval request as counted (`order_desk_approvals_requested_total`); false when it
 * was counted before. `restartApproval` clears the mark for the next round.
 */
export async function markApprovalCounted(q: Queryable, orderId: string): Promise<boolean> {
  const { rows } = await q.query(
    `UPDATE orders SET approval_counted_at = now()
     WHERE id = $1 AND approval IS NOT NULL AND approval_counted_at IS NULL RETURNING id`,
    [orderId],
  );
  return rows.length > 0;
}

export interface ApprovalMessage {
  orderId: string;
  approver: string;
  channelId: string;
  messageTs: string;
  /** When Slack took the reminder. */
  remindedAt: Date | null;
  /** When a run of the reminder job claimed it (see `claimReminder`). */
  remindClaimedAt: Date | null;
  /** When the reminder was first claimed to be sent: it may be in Slack even though `remindedAt` is not set. */
  remindAttemptedAt: Date | null;
  decidedShownAt: Date | null;
}

function mapMessage(row: Row): ApprovalMessage {
  return {
    orderId: row.order_id,
    approver: row.approver,
    channelId: row.channel_id,
    messageTs: row.message_ts,
    remindedAt: row.reminded_at ?? null,
    remindClaimedAt: row.remind_claimed_at ?? null,
    remindAttemptedAt: row.remind_attempted_at ?? null,
    decidedShownAt: row.decided_shown_at ?? null,
  };
}

export async function listApprovalMessages(q: Queryable, orderId: string): Promise<ApprovalMessage[]> {
  const { rows } = await q.query("SELECT * FROM approval_messages WHERE order_id = $1 ORDER BY approver", [
    orderId,
  ]);
  return rows.map(mapMessage);
}

/** Sets a column of an approver's DM once; false when it was set before. */
async function markOnce(
  q: Queryable,
  column: "reminded_at" | "decided_shown_at",
  orderId: string,
  approver: string,
): Promise<boolean> {
  const { rows } = await q.query(
    `UPDATE approval_messages SET ${column} = now()
     WHERE order_id = $1 AND approver = $2 AND ${column} IS NULL RETURNING approver`,
    [orderId, approver],
  );
  return rows.length > 0;
}

/**
 * Claims the approver's reminder for one run of the reminder job: claimed when it is not sent yet and nobody holds
 * it, or its claim is older than `leaseMs` (the run that took it died before sending it, or before recording that
 * it did). Null when it was sent, or another run holds it now. The claim is also the reminder's attempt, kept when
 * the claim is given back: `earlierAttempt` says when an earlier run first tried (its reminder may be in Slack
 * with its answer lost: look for it before sending again), null for the first.
 */
export async function claimReminder(
  q: Queryable,
  orderId: string,
  approver: string,
  leaseMs: number,
): Promise<{ earlierAttempt: Date | null } | null> {
  const { rows } = await q.query(
    `UPDATE approval_messages a SET remind_claimed_at = now(), remind_attempted_at = COALESCE(b.before, now())
       FROM (SELECT order_id, approver, remind_attempted_at AS before FROM approval_messages
              WHERE order_id = $1 AND approver = $2 FOR UPDATE) b
      WHERE a.order_id = b.order_id AND a.approver = b.approver AND a.reminded_at IS NULL
        AND (a.remind_claimed_at IS NULL OR a.remind_claimed_at < now() - make_interval(secs => $3))
     RETURNING b.before`,
    [orderId, approver, leaseMs / 1000],
  );
  const row = rows[0];
  return row ? { earlierAttempt: (row.before as Date | null) ?? null } : null;
}

/**
 * Gives up a claim whose reminder Slack may not have taken, so the job's retry sends it at once (after looking for
 * it: the attempt stays recorded).
 */
export async function releaseReminder(q: Queryable, orderId: string, approver: string): Promise<void> {
  await q.query(
    `UPDATE approval_messages SET remind_claimed_at = NULL
     WHERE order_id = $1 AND approver = $2 AND reminded_at IS NULL`,
    [orderId, approver],
  );
}

/** Records that Slack took the approver's reminder (after it was sent). */
export const markApproverReminded = (q: Queryable, orderId: string, approver: string) =>
  markOnce(q, "reminded_at", orderId, approver);

export const markDecisionShown = (q: Queryable, orderId: string, approver: string) =>
  markOnce(q, "decided_shown_at", orderId, approver);

/** Orders of these profiles waiting for approval, oldest first (App Home's "Waiting for your approval"). */
export async function listAwaitingApproval(
  q: Queryable,
  profiles: readonly string[],
  limit = 10,
): Promise<Order[]> {
  if (profiles.length === 0) return [];
  const { rows } = await q.query(
    `SELECT * FROM orders WHERE status = 'awaiting_approval' AND profile = ANY($1::text[])
     ORDER BY created_at, id LIMIT $2`,
    [profiles, limit],
  );
  return rows.map(mapOrder);
}

/** Records that Slack will never DM this approver (for this round); false when it was recorded before. */
export async function recordApprovalDmFailure(
  q: Queryable,
  failure: { orderId: string; approver: string; error: string },
): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO approval_dm_failures (order_id, approver, error) VALUES ($1, $2, $3)
     ON CONFLICT (order_id, approver) DO NOTHING RETURNING approver`,
    [failure.orderId, failure.approver, failure.error],
  );
  return rows.length === 1;
}

/** The approvers of this order Slack will never DM (not asked again, not reminded). */
export async function listUnreachableApprovers(q: Queryable, orderId: string): Promise<Set<string>> {
  const { rows } = await q.query<{ approver: string }>(
    "SELECT approver FROM approval_dm_failures WHERE order_id = $1",
    [orderId],
  );
  return new Set(rows.map((r) => r.approver));
}
