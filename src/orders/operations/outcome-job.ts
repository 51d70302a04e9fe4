/**
 * An admin alert shows what became of its item: once an admin acted (who, what, when, no buttons left), or again
 * with its buttons after an undo. The rewrite is a job enqueued in the transaction that changed the item, so a
 * process killed right after the admin's click was acked still rewrites the alert once it is back; the job's
 * retries wait out a Slack that refuses or does not answer.
 */
import { type Logger, pino } from "pino";
import { jobId } from "../../jobs/ids.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import type { Queryable, Store } from "../../store/db.ts";
import { getAttention } from "../../store/repositories/attention.ts";
import type { AttentionAlerts } from "./report.ts";
import type { AttentionItem } from "./types.ts";

/** Enqueues the alert's rewrite inside `tx`: one job per change of the item. */
export async function enqueueAlertRewrite(
  jobs: Pick<Jobs, "send">,
  tx: Queryable,
  item: AttentionItem,
): Promise<void> {
  const change = item.resolvedAt ? item.resolvedAt.toISOString() : `open:${new Date().toISOString()}`;
  await jobs.send(
    QUEUES.attentionOutcome,
    { itemId: item.id },
    { id: jobId(QUEUES.attentionOutcome, item.id, change), tx },
  );
}

export interface AlertRewriteDeps {
  store: Store;
  alerts: Pick<AttentionAlerts, "showOutcome">;
  logger?: Logger;
}

export function alertRewriteHandler(deps: AlertRewriteDeps): JobHandler<{ itemId: string }> {
  const logger = deps.logger ?? pino({ level: "silent" });
  return async (job) => {
    const item = await getAttention(deps.store, job.data.itemId);
    // Not posted (yet): the unsent-alerts sweep posts it as it is now.
    if (!item?.alertTs) return;
    await deps.alerts.showOutcome(item);
    logger.info({ itemId: item.id, resolution: item.resolution }, "admin alert rewritten");
  };
}

export function workAlertRewrites(jobs: Pick<Jobs, "work">, deps: AlertRewriteDeps): void {
  jobs.work(QUEUES.attentionOutcome, alertRewriteHandler(deps), { concurrency: 2 });
}
