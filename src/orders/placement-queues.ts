/**
 * Registers placement's handlers on their queues: `place-order`, `show-order`, and `workflow-deadline` when
 * the workflow step's handlers are given. They were one queue before; each now has its own payload.
 */
import type { Jobs } from "../jobs/jobs.ts";
import type { WorkflowDeadlineJobData } from "../jobs/payloads.ts";
import { QUEUES } from "../jobs/queues.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { PlacementHandlers } from "./place.ts";

export function workPlacement(
  jobs: Pick<Jobs, "work">,
  handlers: PlacementHandlers & { workflowDeadline?: JobHandler<WorkflowDeadlineJobData> },
  options: { concurrency?: number } = {},
): void {
  const concurrency = options.concurrency ?? 4;
  jobs.work(QUEUES.placeOrder, handlers.placeOrder, { concurrency });
  jobs.work(QUEUES.showOrder, handlers.showOrder, { concurrency });
  if (handlers.workflowDeadline)
    jobs.work(QUEUES.workflowDeadline, handlers.workflowDeadline, { concurrency });
}
