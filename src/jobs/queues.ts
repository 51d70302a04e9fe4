/**
 * The durable queues and their retry policies.
 *
 * pg-boss retries a failed job after `retryDelay · 2^(n-1)` to `retryDelay · 2^n` seconds (n = the retry number,
 * random within the range so that many failed jobs do not come back at the same instant).
 * - place-order: 10 retries from 15 s → the last one between ~4.3 h and ~8.5 h after the first failure, so a
 *   supplier answering INTERNAL_SERVER_ERROR or unreachable for hours still gets the order in the end.
 * - show-order and workflow-deadline: the same as place-order, whose queue carried them before they had
 *   their own (an ended order Slack could not show yet; a workflow step's deadline).
 * - post-update: 8 retries from 5 s → retried for ~20–40 min (a Slack 429 is not a failure: the handler throws
 *   `RetryLaterError(retryAfterMs)` and the job is re-scheduled without using up an attempt).
 * - approval-*: the approval's Slack side (DMs, the decision shown, the reminder) and its expiry
 *   (src/orders/approvals/jobs.ts), one job per order each, with deterministic ids.
 * - reprocess-events: an admin's Reprocess on an alert about unreadable deliveries (src/webhooks/reprocess.ts);
 *   a run is safe to repeat (every event is deduplicated), so a retry after a crash adds nothing.
 * - attention-outcome: an admin alert rewritten after an admin acted on it (src/orders/operations/outcome-job.ts),
 *   enqueued in the action's transaction, so a crash right after the click still leaves the alert rewritten.
 * - budget-alert: a profile's month reaching 80 % / 100 % of its budget, or an order placed over it with `warn`
 *   (src/orders/budget/alert-job.ts), enqueued in the transaction that accepted the order, once each.
 * - watchdog: a stalled-order check due at a computed time (the order's next deadline, src/orders/watchdog/), or
 *   the report of a condition found (its thread reply and admin alert), each run safe to repeat.
 * `expireInSeconds` bounds one run: a handler still running then is aborted (its `signal` fires) and the job
 * is retried; on PostgreSQL it is also how a job held by a replica that died is found and retried.
 */
export const QUEUES = {
  placeOrder: "place-order",
  showOrder: "show-order",
  workflowDeadline: "workflow-deadline",
  postUpdate: "post-update",
  approvalRequest: "approval-request",
  approvalDecision: "approval-decision",
  approvalReminder: "approval-reminder",
  approvalExpiry: "approval-expiry",
  reprocessEvents: "reprocess-events",
  attentionOutcome: "attention-outcome",
  budgetAlert: "budget-alert",
  watchdog: "watchdog",
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const QUEUE_NAMES: readonly QueueName[] = Object.values(QUEUES);

export interface QueuePolicy {
  /** Retries after the first attempt. */
  retryLimit: number;
  /** Base delay of the first retry, in seconds (doubling with `retryBackoff`). */
  retryDelaySeconds: number;
  retryBackoff: boolean;
  /** Longest a single run may take. */
  expireInSeconds: number;
}

export const DEFAULT_POLICIES: Readonly<Record<QueueName, QueuePolicy>> = {
  "place-order": { retryLimit: 10, retryDelaySeconds: 15, retryBackoff: true, expireInSeconds: 300 },
  "show-order": { retryLimit: 10, retryDelaySeconds: 15, retryBackoff: true, expireInSeconds: 300 },
  "workflow-deadline": { retryLimit: 10, retryDelaySeconds: 15, retryBackoff: true, expireInSeconds: 300 },
  "post-update": { retryLimit: 8, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
  "approval-request": { retryLimit: 8, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
  "approval-decision": { retryLimit: 8, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
  "approval-reminder": { retryLimit: 8, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
  "approval-expiry": { retryLimit: 8, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
  "reprocess-events": { retryLimit: 8, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 600 },
  "attention-outcome": { retryLimit: 8, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
  "budget-alert": { retryLimit: 8, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
  watchdog: { retryLimit: 8, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
};

export function isQueueName(value: string): value is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(value);
}
