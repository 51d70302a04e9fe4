/**
 * Asking for approval, inside the transaction that stores the order: the order is inserted as
 * `awaiting_approval` (not `queued`, and no placement job), what it asks for is recorded, and three durable jobs
 * are enqueued with it, each once per order and round (deterministic ids): the DMs and the order's message now, the
 * reminder at `remindAfterHours`, the expiry at `expireAfterDays`. A restart loses none of them, and none runs twice
 * to any effect (each checks the order's state and round first).
 */
import type { ApprovalConfig } from "../../config/approval-schema.ts";
import type { Customer } from "../../config/catalog.ts";
import type { Profile } from "../../config/customer-schema.ts";
import { jobId } from "../../jobs/ids.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import type { ApprovalJobData } from "../../jobs/payloads.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { Queryable } from "../../store/db.ts";
import {
  type ApprovalRequest,
  restartApproval,
  setApprovalRequest,
} from "../../store/repositories/approvals.ts";
import type { BudgetDecision } from "../budget/reserve.ts";
import type { Order } from "../model/order.ts";
import { type MatchedRule, matchApprovalRule } from "./rules.ts";

const HOUR_MS = 3_600_000;

export type ApprovalQueue =
  | typeof QUEUES.approvalRequest
  | typeof QUEUES.approvalDecision
  | typeof QUEUES.approvalReminder
  | typeof QUEUES.approvalExpiry;

export function approvalJobId(queue: ApprovalQueue, orderId: string, round = ""): string {
  return round === "" ? jobId(queue, orderId) : jobId(queue, orderId, round);
}

export function approvalRequestFor(
  approval: ApprovalConfig,
  matched: MatchedRule,
  at: Date,
  budget?: Pick<BudgetDecision, "month" | "after" | "monthly" | "currency"> | null,
): ApprovalRequest {
  return {
    ...(budget && {
      budget: {
        month: budget.month,
        spent: budget.after,
        monthly: budget.monthly,
        currency: budget.currency,
      },
    }),
    rule: matched.rule,
    phrase: matched.phrase,
    approvers: [...approval.approvers],
    approverGroups: [...approval.approverGroups],
    requestedAt: at.toISOString(),
    remindAt: new Date(at.getTime() + approval.remindAfterHours * HOUR_MS).toISOString(),
    expireAt: new Date(at.getTime() + approval.expireAfterDays * 24 * HOUR_MS).toISOString(),
  };
}

/** The round of an order's approval: its first request, or one after a resubmission (jobs need new ids). */
export function approvalRound(order: Pick<Order, "resubmittedAt">): string {
  return order.resubmittedAt ? order.resubmittedAt.toISOString() : "";
}

/**
 * Is this approval job for the order's current round? A job carries its round (`ApprovalJobData.round`); one
 * enqueued before jobs carried it is told by its deterministic id. A job of an earlier round (a reminder or an
 * expiry of a request that was rejected, fixed and resubmitted since) must do nothing: the new round has its own.
 */
export function isCurrentRound(
  job: { id: string; queue: ApprovalQueue; data: ApprovalJobData },
  order: Order,
): boolean {
  const current = approvalRound(order);
  if (job.data.round !== undefined) return job.data.round === current;
  return job.id === approvalJobId(job.queue, order.id, current);
}

/**
 * Records the request on an order just inserted as `awaiting_approval` (or restarted by a resubmission) and
 * enqueues its jobs, in `tx`. Each job carries the round (`approvalRound`): the requests of one order resubmitted
 * after a rejection need new job ids, and an earlier round's reminder or expiry, still due, must not act on this one.
 */
export async function requestApproval(
  tx: Queryable,
  jobs: Pick<Jobs, "send">,
  order: Order,
  request: ApprovalRequest,
): Promise<Order> {
  const stored = (await setApprovalRequest(tx, order.id, request)) ?? order;
  const round = approvalRound(order);
  const data: ApprovalJobData = { orderId: order.id, round };
  await jobs.send(QUEUES.approvalRequest, data, {
    id: approvalJobId(QUEUES.approvalRequest, order.id, round),
    tx,
  });
  await jobs.send(QUEUES.approvalReminder, data, {
    id: approvalJobId(QUEUES.approvalReminder, order.id, round),
    startAfter: new Date(request.remindAt),
    tx,
  });
  await jobs.send(QUEUES.approvalExpiry, data, {
    id: approvalJobId(QUEUES.approvalExpiry, order.id, round),
    startAfter: new Date(request.expireAt),
    tx,
  });
  return stored;
}

/**
 * "Fix and resubmit" (`resubmitOrder`, same transaction): when the corrected order matches an approval rule, it
 * waits for approval again (a new round, with its own jobs) and is returned; otherwise null, and the caller
 * enqueues its placement. An earlier round's decision is cleared either way.
 */
export async function approvalForResubmission(
  tx: Queryable,
  deps: { jobs: Pick<Jobs, "send">; customer: Customer },
  order: Order,
  profile: Profile,
  at: Date,
  /** The budget decision of this resubmission (src/orders/budget/reserve.ts), and its `overBudget` rule if it matched. */
  budget: { decision: BudgetDecision | null; overBudget: MatchedRule | null } = {
    decision: null,
    overBudget: null,
  },
): Promise<Order | null> {
  const matched = profile.approval
    ? (matchApprovalRule(profile.approval, order.request, deps.customer, order) ?? budget.overBudget)
    : null;
  if (!matched || !profile.approval) {
    if (order.approval) await restartApproval(tx, order.id, null);
    return null;
  }
  const request = approvalRequestFor(profile.approval, matched, at, budget.decision);
  // `restarted` has its `resubmittedAt` (set by the resubmission in this transaction): a new round.
  const restarted = (await restartApproval(tx, order.id, request)) ?? order;
  return requestApproval(tx, deps.jobs, restarted, request);
}
