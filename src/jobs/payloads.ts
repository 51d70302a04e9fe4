/**
 * The payload of each queue: one zod schema per job kind, parsed once where a job leaves the queue
 * (`dispatch.ts`), so every handler gets its own typed data and a job that does not fit fails at once with
 * a readable error instead of deep inside a handler.
 */
import { z } from "zod";
import type { QueueName } from "./queues.ts";

const orderId = z.string().min(1);

export const JOB_PAYLOADS = {
  /** Place the order with the supplier. */
  "place-order": z.object({ orderId }),
  /** The order ended but Slack could not show it: show its final state again, never place it. */
  "show-order": z.object({ orderId }),
  /** A workflow step's deadline: fail the step (and its order) if the order is not placed by then. */
  "workflow-deadline": z.object({ orderId }),
  /** Post the order's unposted supplier events to Slack. */
  "post-update": z.object({
    orderId,
    /** The event that caused the job (for logs; the job posts all of the order's unposted events). */
    eventId: z.string().min(1),
  }),
} as const satisfies Record<QueueName, z.ZodType>;

export type JobData<Q extends QueueName> = z.infer<(typeof JOB_PAYLOADS)[Q]>;

export type PlaceOrderJobData = JobData<"place-order">;
export type ShowOrderJobData = JobData<"show-order">;
export type WorkflowDeadlineJobData = JobData<"workflow-deadline">;
export type PostUpdateJobData = JobData<"post-update">;
