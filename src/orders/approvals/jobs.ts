/**
 * The approval's durable jobs, one queue each (src/jobs/queues.ts), each once per order:
 * - `approval-request`: the order's message ("Waiting for approval from …") and a DM to every approver, retried
 *   for those whose DM Slack did not take (each DM sent is recorded, and not sent again; each claimed first, one
 *   claim per approver and round shared with the reminder, so the two never both DM an approver, and the claim is
 *   the DM's attempt, so a retry after a lost answer finds the DM instead of sending another: ask.ts);
 * - `approval-decision`: after a decision or the expiry, every approver DM shows it (buttons gone), the order's
 *   thread is told once, a rejected or expired workflow order fails its step, the order's message shows the end;
 * - `approval-reminder`: one reminder to each approver who has not decided, if the order still waits (an approver
 *   whose DM had failed is DMed now instead, under the same claim as the request job's);
 * - `approval-expiry`: the order expires if still waiting (the same conditional decision as a click).
 * Each reads the order first and does only what is not done yet (recorded per DM), so a run repeated after a
 * restart repeats nothing. The reminder and the expiry are due at times taken from the app's clock when the order
 * was accepted (`startAfter`), and their effect happens at most once per round. The queue runs them by the
 * database's clock, which the app's may be behind (the demo's world clock is): a run before the app's clock reaches
 * the time is put off until it does, so an approver is reminded, and a request expires, when the app's clock says.
 * Every job is for one round of the order's approval (`isCurrentRound`): after a rejection, "Fix and resubmit"
 * asks again with jobs of its own, and the first round's reminder and expiry, still due, then do nothing.
 */
import { type Logger, pino } from "pino";
import { PermanentJobError, RetryLaterError } from "../../jobs/errors.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import type { ApprovalJobData } from "../../jobs/payloads.ts";
import { DEFAULT_POLICIES, QUEUES } from "../../jobs/queues.ts";
import type { JobContext, JobHandler } from "../../jobs/worker.ts";
import {
  type ApprovalMessage,
  claimReminder,
  listApprovalMessages,
  markAnnounceAttempted,
  markApprovalAnnounced,
  markApprovalCounted,
  markApproverReminded,
  markDecisionShown,
  releaseReminder,
} from "../../store/repositories/approvals.ts";
import { getOrder } from "../../store/repositories/orders.ts";
import type { Order } from "../model/order.ts";
import type { OrderNotifier } from "../ports.ts";
import { showOrder } from "../show-order.ts";
import { answerFailed } from "../workflow/answer.ts";
import { parseWorkflowContext } from "../workflow/context.ts";
import type { WorkflowFunctions } from "../workflow/ports.ts";
import { askApprovers } from "./ask.ts";
import { type ApprovalDeps, recordDecision } from "./decide.ts";
import type { ApprovalNotifier } from "./ports.ts";
import { type ApprovalQueue, isCurrentRound } from "./request.ts";
import { isApprovalFinal, roundRequesters } from "./status.ts";

export interface ApprovalJobsDeps extends Omit<ApprovalDeps, "logger"> {
  /** The order's message (the same notifier the placement uses). */
  notifier: OrderNotifier;
  /** The approvers' DMs and the order's thread. */
  approvals: ApprovalNotifier;
  /** Fails the Workflow Builder step of a rejected or expired workflow order. */
  workflowFunctions?: WorkflowFunctions;
  /** After the order changed (App Home of its requester). */
  onOrderChanged?: (order: Order) => void;
  /** When an order starts or stops waiting for these approvers (their App Home's "Waiting for your approval"). */
  onApproversChanged?: (userIds: readonly string[]) => void;
  /**
   * How old a claim on an approver's DM or reminder must be before another run takes it over (default: the longest a
   * run of the request or the reminder queue may take, after which the worker has aborted it).
   */
  claimLeaseMs?: number;
  logger?: Logger;
}

/** How long a decision job waits for the order's message before telling its thread. */
const MESSAGE_WAIT_MS = 2000;
/**
 * How long a run waits for another run's claim (an approver's DM, a reminder) to be sent or to expire. Fifty waits in
 * a row (`MAX_CONSECUTIVE_DEFERRALS`) outlast the default lease (two minutes), so a dead run's claim is taken over.
 */
const CLAIM_WAIT_MS = 3000;

function orderIdOf(job: JobContext<ApprovalJobData>): string {
  const orderId = (job.data as Partial<ApprovalJobData> | null)?.orderId;
  if (typeof orderId !== "string") throw new PermanentJobError(`${job.queue} job without an orderId`);
  return orderId;
}

/** The step's error for a workflow order that ended without approval. */
export function workflowRefusalMessage(order: Order): string {
  const name = `Order ${order.externalDocumentNumber}${order.customerReference ? ` for ${order.customerReference}` : ""}`;
  if (order.status === "approval_expired") {
    return `${name} was not placed: nobody approved it before its approval request expired. Run the workflow again if it is still needed, or ask an approver first.`;
  }
  const reason = order.approval?.reason ? `: ${order.approval.reason}` : "";
  return `${name} was not placed: it was rejected by an approver${reason}. Fix what they asked and run the workflow again.`;
}

export function approvalJobHandlers(deps: ApprovalJobsDeps) {
  const baseLogger = (deps.logger ?? pino({ level: "silent" })).child({ component: "approvals" });
  const now = deps.now ?? (() => new Date());
  const claimLeaseMs =
    deps.claimLeaseMs ??
    Math.max(
      DEFAULT_POLICIES[QUEUES.approvalRequest].expireInSeconds,
      DEFAULT_POLICIES[QUEUES.approvalReminder].expireInSeconds,
    ) * 1000;

  /** Puts the run off until `dueAt` (ISO) by the app's clock, when the queue ran it sooner. */
  function dueByAppClock(dueAt: string): void {
    const waitMs = Date.parse(dueAt) - now().getTime();
    if (waitMs > 0) throw new RetryLaterError(waitMs, `not due until ${dueAt} by the app's clock`);
  }

  async function load(job: JobContext<ApprovalJobData>): Promise<{ order: Order; log: Logger } | null> {
    const orderId = orderIdOf(job);
    const order = await getOrder(deps.store, orderId);
    const log = baseLogger.child({ orderId, jobId: job.id, queue: job.queue });
    if (!order?.approval) {
      log.warn("no approval to act on for this order");
      return null;
    }
    if (!isCurrentRound({ id: job.id, queue: job.queue as ApprovalQueue, data: job.data }, order)) {
      log.info({ round: job.data.round }, "a job of an earlier approval round: nothing to do");
      return null;
    }
    return { order, log };
  }

  /** Who may decide the order's round now: its approvers (groups expanded), not whoever asked for it. */
  async function roundApprovers(order: Order): Promise<string[]> {
    const approval = order.approval!;
    const everyone = await deps.membership.expand({
      users: approval.approvers,
      groups: approval.approverGroups,
    });
    const askedBy = roundRequesters(order);
    return everyone.users.filter((u) => !askedBy.includes(u));
  }

  const request: JobHandler<ApprovalJobData> = async (job) => {
    const loaded = await load(job);
    if (!loaded) return;
    // Counted once per request, whatever happens next (a retry, a restart, a decision before the DMs went out).
    if (await markApprovalCounted(deps.store, loaded.order.id)) deps.metrics?.requested(loaded.order.profile);
    if (loaded.order.status !== "awaiting_approval") return;
    let { order } = loaded;
    const { log } = loaded;
    order = await showOrder(deps.store, deps.notifier, order, { kind: "approval" }, { signal: job.signal });
    const approval = order.approval!;
    const everyone = await deps.membership.expand({
      users: approval.approvers,
      groups: approval.approverGroups,
    });
    // Whoever asked for this round (requester, resubmitter) cannot decide it, so they are not asked.
    const askedBy = roundRequesters(order);
    const approvers = everyone.users.filter((u) => !askedBy.includes(u));
    if (approvers.length === 0) {
      log.error({ failedGroups: everyone.failedGroups }, "nobody can approve this order");
      await deps.notifier
        .alertAdmins({
          key: `no-approver:${order.id}`,
          title: `Nobody can approve order ${order.externalDocumentNumber}`,
          text: `Order ${order.externalDocumentNumber} of the profile "${order.profile}" waits for approval, but its approvers are only whoever asked for it (its requester or resubmitter), or their groups could not be read. Add approvers to the profile's approval block in order-desk.config.yml; the order expires otherwise.`,
        })
        .catch((error) => log.warn({ err: error }, "admin alert failed"));
      if (everyone.failedGroups.length > 0) throw new Error("approver groups could not be read; retrying");
      return;
    }
    // Each DM Slack took is recorded at once, so a retry asks only the approvers whose DM failed.
    const { failed, failure, held } = await askApprovers(deps, order, approvers, log, job.signal, {
      leaseMs: claimLeaseMs,
    });
    deps.onOrderChanged?.(order);
    deps.onApproversChanged?.(approvers);
    // Decided while the DMs went out: the decision job may have missed the last ones, and nobody is asked any more.
    const latest = await getOrder(deps.store, order.id);
    if (latest && latest.status !== "awaiting_approval") {
      await showDecisions(latest, log, job.signal);
      return;
    }
    if (failure !== null) {
      log.warn(
        { approvers: failed },
        "approvers not DMed yet; the job is retried for them (and the reminder asks them when it falls due)",
      );
      throw failure;
    }
    // Being asked by the reminder right now: checked again until it recorded the DM, or its claim can be taken over.
    if (held.length > 0) {
      log.info({ approvers: held }, "another run is DMing approvers; checking again");
      throw new RetryLaterError(CLAIM_WAIT_MS, "another run is DMing an approver; checking again");
    }
  };

  /** Every DM not showing the decision yet is updated; returns the first failure (the others went on). */
  async function showDecisions(order: Order, log: Logger, signal: AbortSignal): Promise<unknown> {
    const messages: ApprovalMessage[] = await listApprovalMessages(deps.store, order.id);
    let failure: unknown = null;
    for (const dm of messages) {
      if (dm.decidedShownAt) continue;
      try {
        await deps.approvals.showDecision(order, dm, { signal });
        await markDecisionShown(deps.store, order.id, dm.approver);
      } catch (error) {
        if (signal.aborted) throw error;
        log.warn({ err: error, approver: dm.approver }, "could not update an approver's DM");
        failure ??= error;
      }
    }
    return failure;
  }

  const decision: JobHandler<ApprovalJobData> = async (job) => {
    const loaded = await load(job);
    if (!loaded || loaded.order.status === "awaiting_approval") return;
    let { order } = loaded;
    const { log } = loaded;
    const dmFailure = await showDecisions(order, log, job.signal);
    if (isApprovalFinal(order.status)) {
      // Ends here: the message shows it with "Fix and resubmit" (an approved one is updated by its placement).
      order = await showOrder(deps.store, deps.notifier, order, { kind: "approval" }, { signal: job.signal });
    } else if (order.slackMessageTs === null) {
      throw new RetryLaterError(MESSAGE_WAIT_MS, "the order's message is not posted yet");
    }
    if (order.approval && order.approval.announcedAt === null) {
      // Recorded as attempted first: a run after one whose answer was lost finds the reply instead of repeating it.
      const earlierAttempt = await markAnnounceAttempted(deps.store, order.id);
      await deps.approvals.announce(order, { signal: job.signal, earlierAttempt });
      order = (await markApprovalAnnounced(deps.store, order.id)) ?? order;
    }
    const context = parseWorkflowContext(order.workflow);
    if (context && !context.completion && isApprovalFinal(order.status) && deps.workflowFunctions) {
      await answerFailed(
        { store: deps.store, functions: deps.workflowFunctions, notifier: deps.notifier, now },
        order,
        context,
        workflowRefusalMessage(order),
        log,
      );
    }
    deps.onOrderChanged?.(order);
    deps.onApproversChanged?.((await listApprovalMessages(deps.store, order.id)).map((m) => m.approver));
    // A DM Slack did not update keeps its buttons: the job is retried for it (the rest is not done again).
    if (dmFailure !== null) throw dmFailure;
    log.info({ status: order.status }, "approval decision shown");
  };

  const reminder: JobHandler<ApprovalJobData> = async (job) => {
    const loaded = await load(job);
    if (loaded?.order.status !== "awaiting_approval") return;
    const { order, log } = loaded;
    dueByAppClock(order.approval!.remindAt);
    const before = await listApprovalMessages(deps.store, order.id);
    // Due before the request's DMs went out (a reminder due at once, or DMs still failing): once they are.
    if (before.length === 0)
      throw new RetryLaterError(MESSAGE_WAIT_MS, "the approvers' DMs are not sent yet");
    // Approvers whose DM failed until the request job gave up are asked now: the DM is their reminder (recorded as
    // reminded with it). One the request job is DMing at this moment is left to it; its DM is their reminder too.
    const missing = await askApprovers(deps, order, await roundApprovers(order), log, job.signal, {
      leaseMs: claimLeaseMs,
      asReminder: true,
    });
    if (missing.asked.length > 0) deps.onApproversChanged?.(missing.asked);
    const dms = await listApprovalMessages(deps.store, order.id);
    // Claim, send, record. The claim keeps two runs at once from reminding anyone twice; `reminded_at` is set only
    // once Slack took the reminder, so a run repeated later skips it and a failed send (the claim given back) is
    // sent again by the job's retry. A run that dies between the claim and the record leaves a claim without
    // `reminded_at`: once it is older than the longest a run may take (the worker aborts a run then), the next run
    // takes it over and sends the reminder, so none is lost. The first claim is also the reminder's attempt, kept
    // when the claim is given back: a run after one whose answer (or whose record) was lost looks for the reminder
    // in the DM's thread before sending it, so none is sent twice either.
    let failure: unknown = null;
    let heldByAnotherRun = false;
    for (const dm of dms) {
      if (dm.remindedAt) continue;
      const claim = await claimReminder(deps.store, order.id, dm.approver, claimLeaseMs);
      if (!claim) {
        heldByAnotherRun = true;
        continue;
      }
      try {
        await deps.approvals.remind(order, dm, { signal: job.signal, earlierAttempt: claim.earlierAttempt });
      } catch (error) {
        await releaseReminder(deps.store, order.id, dm.approver);
        if (job.signal.aborted) throw error;
        log.warn({ err: error, approver: dm.approver }, "could not remind an approver");
        failure ??= error;
        continue;
      }
      await markApproverReminded(deps.store, order.id, dm.approver);
    }
    // One approver's failure did not stop the others: the retry reminds only those not recorded.
    failure ??= missing.failure;
    if (failure !== null) throw failure;
    // Claimed by another run: checked again until that run recorded it, or its claim expired and can be taken over.
    // So is an approver's DM held by the request job (its DM, once recorded, is their reminder).
    const unfinished =
      missing.held.length > 0 ||
      (heldByAnotherRun && (await listApprovalMessages(deps.store, order.id)).some((m) => !m.remindedAt));
    if (unfinished) {
      throw new RetryLaterError(
        CLAIM_WAIT_MS,
        "another run is reminding or DMing an approver; checking again",
      );
    }
    log.info("approvers reminded");
  };

  const expiry: JobHandler<ApprovalJobData> = async (job) => {
    const loaded = await load(job);
    if (loaded?.order.status !== "awaiting_approval") return;
    const { order, log } = loaded;
    dueByAppClock(order.approval!.expireAt);
    const expired = await recordDecision(deps, order.id, { outcome: "expired", by: null, reason: null });
    log.info({ expired: expired !== null }, "approval request expired");
  };

  return {
    [QUEUES.approvalRequest]: request,
    [QUEUES.approvalDecision]: decision,
    [QUEUES.approvalReminder]: reminder,
    [QUEUES.approvalExpiry]: expiry,
  };
}

/** Registers the approval queues' handlers (main.ts, and the tests' world). */
export function workApprovals(jobs: Pick<Jobs, "work">, deps: ApprovalJobsDeps): void {
  for (const [queue, handler] of Object.entries(approvalJobHandlers(deps))) {
    jobs.work(queue as ApprovalQueue, handler, { concurrency: 2 });
  }
}
