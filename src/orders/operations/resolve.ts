/**
 * Resolving an attention item and showing its outcome are one step: the alert's rewrite (who, what, when, no
 * buttons left) is a job enqueued in the transaction that resolves the item, so whoever resolves it (a click, the
 * command line, a reprocessing run) leaves the alert rewritten by a running Order Desk, also after a crash.
 */
import type { Jobs } from "../../jobs/jobs.ts";
import type { Queryable } from "../../store/db.ts";
import { resolveAttention } from "../../store/repositories/attention.ts";
import { enqueueAlertRewrite } from "./outcome-job.ts";
import type { AttentionItem, Resolution } from "./types.ts";

/** Who resolved an item from the command line (shown as "an admin from the command line"). */
export const COMMAND_LINE = "cli";
/** Who resolved an item whose trouble went away by itself (a stalled order's supplier event came). */
export const ORDER_DESK = "order-desk";

export interface ItemResolution {
  resolution: Resolution;
  /** An admin's Slack user id, or COMMAND_LINE. */
  by: string;
  /** What came of it; from the command line, `via` names the command (shown on the alert). */
  detail?: Record<string, unknown> | undefined;
}

/** Resolves the open item and enqueues its alert's rewrite in `tx`; null when it was resolved already. */
export async function resolveAndShow(
  jobs: Pick<Jobs, "send">,
  tx: Queryable,
  itemId: string,
  resolution: ItemResolution,
): Promise<AttentionItem | null> {
  const resolved = await resolveAttention(tx, itemId, resolution);
  if (resolved) await enqueueAlertRewrite(jobs, tx, resolved);
  return resolved;
}
