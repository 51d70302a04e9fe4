/**
 * An approver's decision. Everything is checked again on the server at every click: the order id a button or a
 * modal carries is only a lookup key. The clicker must be an approver of that order's profile now (listed, or a
 * member of a listed group), must not have asked for this round (its requester, or whoever resubmitted it), and the
 * order must still be waiting, and its request not past `expireAt` by the app's clock.
 *
 * The first decision wins, exactly once: one transaction makes the conditional UPDATE (`WHERE status =
 * 'awaiting_approval'`) and, only if it changed the row, enqueues the placement (approved) and the job that shows
 * the decision in Slack. Two approvers at once, a double click, or a retried request find the row decided and
 * change nothing; a crash before the commit leaves the order waiting (the click can be repeated), after it the
 * jobs exist. So an approved order is placed exactly once, and a rejected or expired one never.
 */
import { type Logger, pino } from "pino";
import type { Customer } from "../../config/catalog.ts";
import type { Profile } from "../../config/customer-schema.ts";
import { jobId } from "../../jobs/ids.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import type { ApprovalJobData } from "../../jobs/payloads.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { Queryable, Store } from "../../store/db.ts";
import { type ApprovalOutcome, decideApprovalRow } from "../../store/repositories/approvals.ts";
import { getOrder, setWorkflow } from "../../store/repositories/orders.ts";
import type { ClickDeadline } from "../click-deadline.ts";
import { inert } from "../inert.ts";
import type { Order } from "../model/order.ts";
import { placeOrderData, placeOrderJobId } from "../submit.ts";
import { parseWorkflowContext } from "../workflow/context.ts";
import { deadlineJob } from "../workflow/deadline-job.ts";
import type { ApprovalMembership, ApprovalMetrics } from "./ports.ts";
import { approvalJobId, approvalRound } from "./request.ts";
import { roundRequesters } from "./status.ts";

export interface ApprovalDeps {
  store: Store;
  jobs: Pick<Jobs, "send">;
  customer: Customer;
  membership: ApprovalMembership;
  now?: () => Date;
  metrics?: ApprovalMetrics;
  logger?: Logger;
}

/** Why a click changed nothing; `message` tells the clicker in plain words. */
export type Refusal = {
  refused:
    | "not_found"
    | "no_longer_waiting"
    | "own_order"
    | "not_approver"
    | "lookup_failed"
    | "reason_required";
  message: string;
  order?: Order;
};

export type DecisionResult = { decided: "approved" | "rejected"; order: Order } | Refusal;

const what = (order: Order) =>
  `order ${inert(order.externalDocumentNumber)}${order.customerReference ? ` for ${inert(order.customerReference)}` : ""}`;

/** Why an order is not waiting any more, for someone who clicks a button it no longer needs. */
export function noLongerWaiting(order: Order): string {
  const by = order.approval?.decidedBy ? ` by <@${order.approval.decidedBy}>` : "";
  if (order.status === "rejected_by_approver") return `${capital(what(order))} was already rejected${by}.`;
  if (order.status === "approval_expired") {
    return `The approval request for ${what(order)} expired without a decision; the order was not placed.`;
  }
  if (order.approval?.decidedBy) return `${capital(what(order))} was already approved${by}.`;
  return `${capital(what(order))} does not need approval now.`;
}

function capital(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/**
 * May `userId` decide this order now? Checked for the click that opens the reject modal and again for every
 * decision; reads the order and the customer file afresh each time.
 */
export async function checkApprover(
  deps: Pick<ApprovalDeps, "store" | "customer" | "membership" | "now">,
  orderId: string,
  userId: string,
): Promise<{ order: Order; profile: Profile } | Refusal> {
  const order = await getOrder(deps.store, orderId);
  if (!order)
    return { refused: "not_found", message: "This order no longer exists, so there is nothing to decide." };
  if (order.status !== "awaiting_approval") {
    return { refused: "no_longer_waiting", message: noLongerWaiting(order), order };
  }
  // Past its expiry, the request is over even before the expiry job has run (it may be late, or queued behind others).
  const expireAt = order.approval ? Date.parse(order.approval.expireAt) : Number.NaN;
  if ((deps.now ?? (() => new Date()))().getTime() >= expireAt) {
    return {
      refused: "no_longer_waiting",
      message: `The approval request for ${what(order)} expired without a decision; the order will not be placed. Nothing was changed.`,
      order,
    };
  }
  const profile = deps.customer.profile(order.profile);
  const approval = profile?.approval;
  if (roundRequesters(order).includes(userId)) {
    const did = userId === order.requestedBy ? "You asked for" : "You resubmitted";
    return {
      refused: "own_order",
      message: `${did} ${what(order)}, so you cannot decide on it yourself, even as an approver: another approver of "${inert(order.profile)}" has to. Nothing was changed.`,
      order,
    };
  }
  const membership = approval
    ? await deps.membership.isAmong({ users: approval.approvers, groups: approval.approverGroups }, userId)
    : ({ member: false, reason: "not_listed" } as const);
  if (!profile || !membership.member) {
    if (!membership.member && membership.reason === "lookup_failed") {
      return {
        refused: "lookup_failed",
        message:
          "Order Desk could not check your user group membership with Slack just now, so nothing was changed. Try again in a minute.",
        order,
      };
    }
    return {
      refused: "not_approver",
      message: `You are not an approver of the profile "${inert(order.profile)}", so nothing was changed. Its approvers are listed under approval: approvers and approverGroups in order-desk.config.yml.`,
      order,
    };
  }
  return { order, profile };
}

async function enqueueAfterDecision(
  tx: Queryable,
  deps: Pick<ApprovalDeps, "jobs">,
  decided: Order,
  at: Date,
): Promise<void> {
  const round = approvalRound(decided);
  const data: ApprovalJobData = { orderId: decided.id, round };
  await deps.jobs.send(QUEUES.approvalDecision, data, {
    id: approvalJobId(QUEUES.approvalDecision, decided.id, round),
    tx,
  });
  if (decided.status !== "queued") return;
  await deps.jobs.send(QUEUES.placeOrder, placeOrderData(decided.id, at), {
    id: round === "" ? placeOrderJobId(decided.id) : jobId(QUEUES.placeOrder, decided.id, "approved", round),
    tx,
  });
  const context = parseWorkflowContext(decided.workflow);
  if (context && decided.approval && !context.completion) {
    // The wait for approval does not count against the step's placement deadline: it starts again now.
    const allowedMs = Date.parse(context.deadlineAt) - Date.parse(decided.approval.requestedAt);
    const deadline = new Date(at.getTime() + Math.max(0, allowedMs));
    await setWorkflow(tx, decided.id, {
      ...context,
      startedAt: at.toISOString(),
      deadlineAt: deadline.toISOString(),
    });
    const job = deadlineJob(decided.id, deadline);
    await deps.jobs.send(QUEUES.workflowDeadline, job.data, { id: job.id, startAfter: job.startAfter, tx });
  }
}

/**
 * Records `outcome` if the order still waits, with its follow-up jobs, in one transaction. Returns the decided
 * order, or null when another decision (or the expiry) came first.
 */
export async function recordDecision(
  deps: Pick<ApprovalDeps, "store" | "jobs" | "now" | "metrics">,
  orderId: string,
  decision: { outcome: ApprovalOutcome; by: string | null; reason: string | null },
  deadline?: ClickDeadline,
): Promise<Order | null> {
  const at = (deps.now ?? (() => new Date()))();
  const decided = await deps.store.transaction(async (tx) => {
    const row = await decideApprovalRow(tx, orderId, { ...decision, at });
    if (row) await enqueueAfterDecision(tx, deps, row, at);
    // A click that took too long rolls back here: its clicker is told it was not recorded.
    if (row) deadline?.commit();
    return row;
  });
  if (decided?.approval) {
    const seconds = (at.getTime() - Date.parse(decided.approval.requestedAt)) / 1000;
    deps.metrics?.decided(decision.outcome, decided.profile, Math.max(0, seconds));
  }
  return decided;
}

/** Maximum length of a rejection's reason (a Slack plain-text input allows 3,000). */
export const MAX_REASON_CHARS = 1000;

export async function decideApproval(
  deps: ApprovalDeps,
  input: { orderId: string; userId: string; outcome: "approved" | "rejected"; reason?: string | undefined },
  deadline?: ClickDeadline,
): Promise<DecisionResult> {
  const logger = deps.logger ?? pino({ level: "silent" });
  const reason = input.reason?.trim().slice(0, MAX_REASON_CHARS) ?? "";
  if (input.outcome === "rejected" && reason === "") {
    return {
      refused: "reason_required",
      message: "Say why the order is rejected: the requester will read it.",
    };
  }
  const checked = await checkApprover(deps, input.orderId, input.userId);
  if ("refused" in checked) {
    logger.info(
      { orderId: input.orderId, userId: input.userId, refused: checked.refused },
      "approval decision refused",
    );
    return checked;
  }
  const decided = await recordDecision(
    deps,
    checked.order.id,
    {
      outcome: input.outcome,
      by: input.userId,
      reason: input.outcome === "rejected" ? reason : null,
    },
    deadline,
  );
  if (!decided) {
    // Someone else decided (or it expired) between the check and the UPDATE: theirs stands.
    const latest = (await getOrder(deps.store, checked.order.id)) ?? checked.order;
    return { refused: "no_longer_waiting", message: noLongerWaiting(latest), order: latest };
  }
  logger.info(
    { orderId: decided.id, decidedBy: input.userId, outcome: input.outcome },
    input.outcome === "approved" ? "order approved; placement queued" : "order rejected by an approver",
  );
  return { decided: input.outcome, order: decided };
}
