/**
 * The payload of each queue: one zod schema per job kind, parsed once where a job leaves the queue
 * (`dispatch.ts`), so every handler gets its own typed data and a job that does not fit fails at once with
 * a readable error instead of deep inside a handler.
 */
import { z } from "zod";
import type { QueueName } from "./queues.ts";

const orderId = z.string().min(1);
/**
 * Which approval request of the order a job is for (src/orders/approvals/request.ts `approvalRound`): "" for its
 * first, the time of the resubmission that asked again for a later one. A job of an earlier round does nothing.
 * Absent in jobs enqueued before jobs carried it: their deterministic id tells their round.
 */
const approvalRound = z.string().optional();

export const JOB_PAYLOADS = {
  /** Place the order with the supplier. */
  "place-order": z.object({
    orderId,
    /**
     * When the placement was queued, by the app's clock (ISO): a workflow step's deadline, set by the same clock, is
     * compared with it. Absent in jobs enqueued before jobs carried it: their creation time in the queue stands in.
     */
    queuedAt: z.iso.datetime({ offset: true }).optional(),
  }),
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
  /** An order waits for approval: its message and the approvers' DMs (src/orders/approvals/jobs.ts). */
  "approval-request": z.object({ orderId, round: approvalRound }),
  /** An approval decided or expired: the DMs, the thread, a workflow step. */
  "approval-decision": z.object({ orderId, round: approvalRound }),
  /** One reminder to each approver, if the order still waits in the same round. */
  "approval-reminder": z.object({ orderId, round: approvalRound }),
  /** The approval request expires, if the order still waits in the same round. */
  "approval-expiry": z.object({ orderId, round: approvalRound }),
  /** Read the unreadable deliveries of one shape again with the mapping in force (an admin's Reprocess). */
  "reprocess-events": z.object({
    shapeKey: z.string().min(1),
    /** The alert's attention item, and the admin who clicked. */
    itemId: z.string().min(1),
    by: z.string().min(1),
  }),
  /** Rewrite an attention item's admin alert as the item is now (resolved, or open again after an undo). */
  "attention-outcome": z.object({ itemId: z.string().min(1) }),
  /** Tell the admins about a budget (src/orders/budget/alert-job.ts); amounts as decimal strings. */
  "budget-alert": z.discriminatedUnion("kind", [
    z.object({
      kind: z.literal("threshold"),
      profile: z.string().min(1),
      month: z.string().min(1),
      percent: z.union([z.literal(80), z.literal(100)]),
      spent: z.string().min(1),
      monthly: z.string().min(1),
      currency: z.string().min(1),
    }),
    z.object({
      kind: z.literal("over_budget"),
      orderId,
      spent: z.string().min(1),
      monthly: z.string().min(1),
      currency: z.string().min(1),
    }),
  ]),
  /**
   * The watchdog (src/orders/watchdog/jobs.ts): without `report`, check the order when `dueAt` has come (a stale
   * check does nothing); with it, post that condition's thread reply and admin alert, once.
   */
  watchdog: z.object({
    orderId,
    dueAt: z.iso.datetime({ offset: true }).optional(),
    report: z.enum(["not_accepted", "not_shipped", "not_delivered"]).optional(),
  }),
} as const satisfies Record<QueueName, z.ZodType>;

export type JobData<Q extends QueueName> = z.infer<(typeof JOB_PAYLOADS)[Q]>;

export type PlaceOrderJobData = JobData<"place-order">;
export type ShowOrderJobData = JobData<"show-order">;
export type WorkflowDeadlineJobData = JobData<"workflow-deadline">;
export type PostUpdateJobData = JobData<"post-update">;
export type ApprovalJobData = JobData<"approval-request">;
export type BudgetAlertJobData = JobData<"budget-alert">;
export type WatchdogJobData = JobData<"watchdog">;
