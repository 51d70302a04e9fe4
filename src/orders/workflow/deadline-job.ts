/**
 * The deadline job: a `place-order` queue entry scheduled for the step's deadline. It carries no `orderId` on
 * purpose, so that it can never be taken for a placement: only `withWorkflowSteps` (placement-job.ts) runs it.
 */
import { jobId } from "../../jobs/ids.ts";
import { QUEUES } from "../../jobs/queues.ts";

export interface WorkflowDeadlineJobData {
  workflowDeadlineFor: string;
}

export function deadlineJob(
  orderId: string,
  deadline: Date,
): { id: string; data: WorkflowDeadlineJobData; startAfter: Date } {
  return {
    id: deadlineJobId(orderId),
    data: { workflowDeadlineFor: orderId },
    startAfter: deadline,
  };
}

export function deadlineJobId(orderId: string): string {
  return jobId(QUEUES.placeOrder, orderId, "workflow-deadline");
}

export function deadlineOrderId(data: unknown): string | null {
  const value = (data as Partial<WorkflowDeadlineJobData> | null)?.workflowDeadlineFor;
  return typeof value === "string" ? value : null;
}
