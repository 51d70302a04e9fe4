/**
 * A failed placement retried outside Slack (`order-desk jobs retry`): its admin alert must not go on offering
 * Retry now. The open item is resolved as retried, by the command line, in the caller's transaction (the one that
 * puts the order and its job back), so a click on the alert's Retry now answers who retried it and does nothing.
 * With `jobs` (a started queue) the alert's rewrite is enqueued too; the command line's queue is not started (it
 * works no jobs), so there the alert keeps its text until someone clicks it.
 */
import type { Jobs } from "../../jobs/jobs.ts";
import type { Queryable } from "../../store/db.ts";
import { findOpenAttentionForUpdate, resolveAttention } from "../../store/repositories/attention.ts";
import { enqueueAlertRewrite } from "./outcome-job.ts";

/** Who resolved an item from the command line (shown as such on the alert). */
export const COMMAND_LINE = "cli";

export async function resolveRetriedFromCommandLine(
  jobs: Pick<Jobs, "send"> | null,
  tx: Queryable,
  orderId: string,
  jobId: string,
): Promise<boolean> {
  const item = await findOpenAttentionForUpdate(tx, "failed_order", orderId);
  if (!item) return false;
  const resolved = await resolveAttention(tx, item.id, {
    resolution: "retried",
    by: COMMAND_LINE,
    detail: { via: "order-desk jobs retry", jobId },
  });
  if (resolved && jobs) await enqueueAlertRewrite(jobs, tx, resolved);
  return resolved !== null;
}
