/**
 * What an order placed by the Workflow Builder step remembers about its step, in `orders.workflow` (JSON).
 * Parsed once where it is read (the column is ours, but a row written by an older version may differ).
 *
 * Deliberately absent: the execution's `bot_access_token`. Completing a function works with the app's bot
 * token, so no token is ever written to the database.
 */
import { z } from "zod";

export const workflowContextSchema = z.object({
  /** Slack's id of this run of the step: the order's idempotency key and what `functions.complete*` name. */
  functionExecutionId: z.string().min(1),
  workflowExecutionId: z.string().nullable(),
  callbackId: z.string(),
  /** The `recipient` input (a Slack user), when given. */
  recipientUserId: z.string().nullable().default(null),
  /**
   * When the time to place the order began (ISO): the step's start, or its approval's. Absent in orders stored before
   * it was recorded (the order's creation stands in). Every time here is the app's clock's, like the placement
   * job's `queuedAt` it is compared with.
   */
  startedAt: z.iso.datetime({ offset: true }).optional(),
  /** Until when an unavailable supplier is retried (ISO). Past it, the order is not placed any more. */
  deadlineAt: z.iso.datetime({ offset: true }),
  /** Set (ISO) in the same statement that marks the order failed at the deadline: no job queued before it places the order. */
  expiredAt: z.iso.datetime({ offset: true }).optional(),
  /** Set once Slack has accepted the step's outcome. */
  completion: z
    .object({
      outcome: z.enum(["completed", "failed"]),
      at: z.iso.datetime({ offset: true }),
    })
    .optional(),
});

export type WorkflowContext = z.infer<typeof workflowContextSchema>;

export function parseWorkflowContext(value: unknown): WorkflowContext | null {
  if (value === null || value === undefined) return null;
  const parsed = workflowContextSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export function isPastDeadline(context: WorkflowContext, now: Date): boolean {
  return now.getTime() >= Date.parse(context.deadlineAt);
}
