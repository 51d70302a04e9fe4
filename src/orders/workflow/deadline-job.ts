/**
 * The deadline job: a `workflow-deadline` job scheduled for the step's deadline, run by `withWorkflowSteps`
 * (placement-job.ts). It has a queue of its own, so it can never be taken for a placement.
 */
import { jobId } from "../../jobs/ids.ts";
import type { WorkflowDeadlineJobData } from "../../jobs/payloads.ts";
import { QUEUES } from "../../jobs/queues.ts";

export type { WorkflowDeadlineJobData };

export function deadlineJob(
  orderId: string,
  deadline: Date,
): { id: string; data: WorkflowDeadlineJobData; startAfter: Date } {
  return { id: deadlineJobId(orderId), data: { orderId }, startAfter: deadline };
}

export function deadlineJobId(orderId: string): string {
  return jobId(QUEUES.workflowDeadline, orderId);
}
