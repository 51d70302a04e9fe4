/**
 * The `reprocess-events` queue: an admin's Reprocess on an alert about unreadable deliveries (enqueued with the
 * click, before its answer: src/orders/operations/act.ts). The run reads every unreadable delivery again, not only
 * the alert's shape: one order's events often come in several shapes (a status change with and without its
 * previous status, a shipment), and only read together are they posted in the order they happened. Then it shows
 * in Slack what came of it: a new alert for what is still unreadable (the outcome on alerts now fully read is
 * shown by their rewrite jobs). A
 * repeated run adds nothing (every event is deduplicated), so the queue's retries are safe.
 */
import type { Logger } from "pino";
import type { Jobs } from "../jobs/jobs.ts";
import { QUEUES } from "../jobs/queues.ts";
import type { AttentionAlerts } from "../orders/operations/report.ts";
import { type ReprocessDeps, reprocessUnreadable } from "./reprocess.ts";
import { postOpenedAlert } from "./unreadable.ts";

export function workReprocess(
  jobs: Pick<Jobs, "work">,
  deps: ReprocessDeps & { alerts: AttentionAlerts; logger: Logger },
): void {
  jobs.work(
    QUEUES.reprocessEvents,
    async (job) => {
      const result = await reprocessUnreadable(deps, { by: job.data.by });
      deps.logger.info(
        {
          shape: job.data.shapeKey,
          by: job.data.by,
          examined: result.examined,
          read: result.read,
          duplicates: result.duplicates,
          stillUnreadable: result.stillUnreadable,
        },
        "reprocessed unreadable supplier deliveries",
      );
      // The alerts it closed are rewritten by the jobs enqueued with their resolution.
      for (const item of result.opened) await postOpenedAlert(deps, item);
    },
    { concurrency: 1 },
  );
}
