/**
 * An approver's DM asking for a decision, claimed before it is sent (`approval_dm_attempts`, migrations 024 and 026):
 * one claim per approver and approval round, shared by the approval-request job and the reminder (which asks an
 * approver whose DM had failed), so the two never both DM them. Claim, send, record:
 *
 * - `claimApprovalDm` takes the claim when the order still waits for this request, the DM is not recorded, the
 *   approver is not unreachable, and nobody holds the claim (or its holder is older than the lease: that run died).
 *   The claim is also the DM's attempt, kept when the claim is given back: `earlierAttempt` says when a DM was first
 *   tried (it may be in Slack with its answer lost: look for it before sending again).
 * - `recordApprovalMessage` records the DM Slack took and marks the claim sent, in one statement; a DM that went out
 *   once the reminder was due is recorded as the approver's reminder too.
 * - `releaseApprovalDm` gives the claim back after a failed send, for the next run.
 *
 * Every function runs one statement on the `Queryable` it is given; the conflict on the row decides between two runs
 * at once (a run whose claim failed reads the row as it was committed by the other).
 */
import type { Queryable } from "../db.ts";
import type { ApprovalMessage } from "./approvals.ts";

export interface ApprovalDmClaim {
  /** When an earlier attempt was recorded (look for its DM first), or null for the first. */
  earlierAttempt: Date | null;
}

export interface ClaimApprovalDmArgs {
  orderId: string;
  approver: string;
  /** The round's request (`approval.requestedAt`): a run of an earlier round claims nothing. */
  requestedAt: string;
  /** How old a claim must be before it is taken over (the longest a run may take). */
  leaseMs: number;
  /** Asked by the reminder: the DM is the approver's reminder. */
  asReminder: boolean;
}

/** Claims the approver's DM for this run; null when it is not to be sent by this run (see the file's comment). */
export async function claimApprovalDm(
  q: Queryable,
  args: ClaimApprovalDmArgs,
): Promise<ApprovalDmClaim | null> {
  const { rows } = await q.query(
    `INSERT INTO approval_dm_attempts AS a (order_id, approver, attempted_at, claimed_at, counts_as_reminder)
     SELECT $1::text, $2::text, now(), now(), $5::boolean
      WHERE EXISTS (SELECT 1 FROM orders o WHERE o.id = $1 AND o.status = 'awaiting_approval'
                      AND o.approval->>'requestedAt' = $3)
        AND NOT EXISTS (SELECT 1 FROM approval_messages m WHERE m.order_id = $1 AND m.approver = $2)
        AND NOT EXISTS (SELECT 1 FROM approval_dm_failures f WHERE f.order_id = $1 AND f.approver = $2)
     ON CONFLICT (order_id, approver) DO UPDATE
        SET claimed_at = now(), counts_as_reminder = a.counts_as_reminder OR EXCLUDED.counts_as_reminder
      WHERE a.sent_at IS NULL
        AND (a.claimed_at IS NULL OR a.claimed_at < now() - make_interval(secs => $4))
     RETURNING CASE WHEN a.attempted_at < a.claimed_at THEN a.attempted_at END AS earlier`,
    [args.orderId, args.approver, args.requestedAt, args.leaseMs / 1000, args.asReminder],
  );
  const row = rows[0];
  return row ? { earlierAttempt: (row.earlier as Date | null) ?? null } : null;
}

/**
 * After a claim failed: whether another run holds the claim and has not recorded the DM yet (true: it may still fail
 * and give it back, so check again later). With `asReminder`, the DM that run sends is marked as the approver's
 * reminder. False when the DM is recorded, or not to be sent at all.
 */
export async function approvalDmHeld(
  q: Queryable,
  orderId: string,
  approver: string,
  asReminder: boolean,
): Promise<boolean> {
  const { rows } = await q.query(
    `UPDATE approval_dm_attempts SET counts_as_reminder = counts_as_reminder OR $3
      WHERE order_id = $1 AND approver = $2 AND sent_at IS NULL AND claimed_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM approval_messages m WHERE m.order_id = $1 AND m.approver = $2)
     RETURNING approver`,
    [orderId, approver, asReminder],
  );
  return rows.length > 0;
}

/** Gives the claim back after a send that failed (the attempt stays recorded: the next run looks first). */
export async function releaseApprovalDm(q: Queryable, orderId: string, approver: string): Promise<void> {
  await q.query(
    `UPDATE approval_dm_attempts SET claimed_at = NULL
      WHERE order_id = $1 AND approver = $2 AND sent_at IS NULL`,
    [orderId, approver],
  );
}

/**
 * Records an approver's DM (once per order and approver) and marks its claim sent; reminded at once when the DM
 * counts as the reminder.
 */
export async function recordApprovalMessage(
  q: Queryable,
  message: Pick<ApprovalMessage, "orderId" | "approver" | "channelId" | "messageTs">,
): Promise<void> {
  await q.query(
    `WITH sent AS (
       UPDATE approval_dm_attempts SET sent_at = COALESCE(sent_at, now()), claimed_at = NULL
        WHERE order_id = $1 AND approver = $2 RETURNING counts_as_reminder
     )
     INSERT INTO approval_messages (order_id, approver, channel_id, message_ts, reminded_at)
     VALUES ($1, $2, $3, $4, CASE WHEN COALESCE((SELECT counts_as_reminder FROM sent), false) THEN now() END)
     ON CONFLICT (order_id, approver) DO NOTHING`,
    [message.orderId, message.approver, message.channelId, message.messageTs],
  );
}
