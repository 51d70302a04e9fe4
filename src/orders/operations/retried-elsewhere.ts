/**
 * A failed placement retried outside Slack (`order-desk jobs retry`): its admin alert must not go on offering
 * Retry now. The open item is resolved as retried, by the command line, in the caller's transaction (the one that
 * puts the order and its job back), with the alert's rewrite enqueued there too: a click on the alert's Retry now
 * meanwhile answers who retried it and does nothing, and the running Order Desk rewrites the alert.
 */
import type { Jobs } from "../../jobs/jobs.ts";
import type { Queryable } from "../../store/db.ts";
import { findOpenAttentionForUpdate } from "../../store/repositories/attention.ts";
import { COMMAND_LINE, resolveAndShow } from "./resolve.ts";

export async function resolveRetriedFromCommandLine(
  jobs: Pick<Jobs, "send">,
  tx: Queryable,
  orderId: string,
  jobId: string,
): Promise<boolean> {
  const item = await findOpenAttentionForUpdate(tx, "failed_order", orderId);
  if (!item) return false;
  const resolved = await resolveAndShow(jobs, tx, item.id, {
    resolution: "retried",
    by: COMMAND_LINE,
    detail: { via: "order-desk jobs retry", jobId },
  });
  return resolved !== null;
}
