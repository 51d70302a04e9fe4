/**
 * Jobs queued by an earlier version, in shapes that have their own queue now. Until then `place-order`
 * carried three payloads: a placement `{ orderId }`, a "show the outcome again" `{ orderId, show: true }` and
 * a workflow deadline `{ workflowDeadlineFor }`. Such jobs may still wait in `place-order` after an upgrade
 * (a deadline is hours away, a show job may be in backoff): the `place-order` worker drains them and hands
 * each to the handler of its own kind. Delete this once no installation can hold a job from before the split.
 */
import type { QueueName } from "./queues.ts";

export interface Routed {
  /** The queue whose handler and payload schema the job now belongs to. */
  kind: QueueName;
  data: unknown;
}

export function routeLegacy(queue: QueueName, data: unknown): Routed {
  if (queue !== "place-order" || typeof data !== "object" || data === null) return { kind: queue, data };
  const old = data as { orderId?: unknown; show?: unknown; workflowDeadlineFor?: unknown };
  if (typeof old.workflowDeadlineFor === "string") {
    return { kind: "workflow-deadline", data: { orderId: old.workflowDeadlineFor } };
  }
  if (old.show === true) return { kind: "show-order", data: { orderId: old.orderId } };
  return { kind: queue, data };
}
