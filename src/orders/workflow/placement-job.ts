/**
 * `withWorkflowSteps(placeOrderJob(...), deps)`: the `place-order` handler that also answers workflow steps,
 * and the `workflow-deadline` handler.
 * Orders without a workflow pass straight through. For a workflow order:
 *
 * - every attempt runs with a signal that aborts at the step's deadline;
 * - accepted → `functions.completeSuccess` with the outputs; refused or failed for good → `completeError`;
 *   still retrying → the queue retries as for `/order`;
 * - at the deadline (checked before and after each attempt, and by the deadline job enqueued with the order) the
 *   order is marked failed and the queued placement cancelled in one go, the step fails with a clear message, and a
 *   placement job queued before that moment never places the order (it may still be retried by pg-boss: this
 *   handler is the guard). A person may still resubmit it by hand ("Fix and resubmit"): that is a new job.
 *
 * If Slack cannot be told the outcome, the job fails and is retried: the next run finds the order placed (or
 * failed) and tells Slack again.
 */
import { type Logger, pino } from "pino";
import { RetryLaterError } from "../../jobs/errors.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import type { PlaceOrderJobData, WorkflowDeadlineJobData } from "../../jobs/payloads.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { JobContext, JobHandler } from "../../jobs/worker.ts";
import type { Store } from "../../store/db.ts";
import { getOrder, getOrderForUpdate, markFailed, setWorkflow } from "../../store/repositories/orders.ts";
import { mayHaveBeenPlaced } from "../model/failure.ts";
import type { Order } from "../model/order.ts";
import type { PlacementHandlers } from "../place.ts";
import type { OrderNotifier } from "../ports.ts";
import { showOrder } from "../show-order.ts";
import { placeOrderJobId } from "../submit.ts";
import { type AnswerDeps, answerFailed, answerPlaced, isPlaced } from "./answer.ts";
import { isPastDeadline, parseWorkflowContext, type WorkflowContext } from "./context.ts";
import { deadlineJobId } from "./deadline-job.ts";
import { deadlineMessage, placementFailedMessage } from "./messages.ts";
import type { WorkflowFunctions } from "./ports.ts";

export interface WorkflowPlacementDeps {
  store: Store;
  jobs: Pick<Jobs, "cancel" | "getJob">;
  functions: WorkflowFunctions;
  /** The same notifier the placement job uses: the order's message shows the deadline failure too. */
  notifier: OrderNotifier;
  now?: () => Date;
  logger?: Logger;
}

/** Placement's handlers with the workflow steps' answers, and the deadline job's handler. */
export interface WorkflowPlacementHandlers extends PlacementHandlers {
  workflowDeadline: JobHandler<WorkflowDeadlineJobData>;
}

/** The reason an attempt's signal carries when the step's deadline cut it short. */
export class WorkflowDeadlineReachedError extends Error {
  readonly code = "WORKFLOW_DEADLINE";
  constructor(readonly deadlineAt: string) {
    super(`the workflow step's deadline (${deadlineAt}) passed during the attempt`);
    this.name = "WorkflowDeadlineReachedError";
  }
}

/** While a placement attempt runs, the deadline job waits this long and looks again. */
const ACTIVE_ATTEMPT_RECHECK_MS = 1000;

/*
 * The step's times (its start, deadline, expiry) are the app's clock's; the queue's and the order row's are the
 * database's, which the app's may be behind (the demo's world clock is). They are compared only with each other's
 * kind: these two read the app's, falling back on the database's for rows and jobs stored before they were recorded.
 */

/** When the time to place the order began, by the app's clock (ms). */
function startOf(context: WorkflowContext, order: Order): number {
  return context.startedAt ? Date.parse(context.startedAt) : order.createdAt.getTime();
}

/** When the placement job was queued, by the app's clock (ms). */
function queuedAt(job: JobContext<PlaceOrderJobData>): number {
  return job.data.queuedAt ? Date.parse(job.data.queuedAt) : job.createdAt.getTime();
}

export function withWorkflowSteps(
  placement: PlacementHandlers,
  deps: WorkflowPlacementDeps,
): WorkflowPlacementHandlers {
  const placeOrder = placement.placeOrder;
  const now = deps.now ?? (() => new Date());
  const baseLogger = (deps.logger ?? pino({ level: "silent" })).child({ component: "workflow-step" });
  const answer: AnswerDeps = { store: deps.store, functions: deps.functions, notifier: deps.notifier, now };

  /** Marks the order failed at the deadline (once), cancels what is queued, shows it, fails the step. */
  async function expire(
    orderId: string,
    log: Logger,
    options: { cancelPlacement: boolean; attemptCutShort?: boolean; signal: AbortSignal },
  ): Promise<void> {
    const at = now();
    const outcome = await deps.store.transaction(async (tx) => {
      const order = await getOrderForUpdate(tx, orderId);
      const context = parseWorkflowContext(order?.workflow);
      if (!order || !context) return null;
      if (isPlaced(order)) return { kind: "placed" as const, order, context };
      if (context.expiredAt) return { kind: "expired" as const, order, context, first: false };
      // An attempt aborted mid-request may have been received: the supplier must be asked before reordering.
      const maybePlaced = mayHaveBeenPlaced(order.failure) || options.attemptCutShort === true;
      const retriedForMs = Date.parse(context.deadlineAt) - startOf(context, order);
      // The order's message adds its own "may have reached the supplier" line from `maybePlaced`.
      const failed = await markFailed(tx, orderId, {
        kind: "failed",
        reason: "workflow_deadline",
        code: "WORKFLOW_DEADLINE",
        message: deadlineMessage(order, retriedForMs, false),
        maybePlaced,
        retriedForMs,
        deadlineAt: context.deadlineAt,
      });
      const next: WorkflowContext = { ...context, expiredAt: at.toISOString() };
      await setWorkflow(tx, orderId, next);
      return { kind: "expired" as const, order: failed ?? order, context: next, first: true };
    });
    if (!outcome) return;
    if (outcome.kind === "placed") return answerPlaced(answer, outcome.order, outcome.context, log);
    const { order, context } = outcome;
    if (outcome.first) {
      log.warn({ deadlineAt: context.deadlineAt }, "workflow deadline passed: the order will not be placed");
      if (options.cancelPlacement) {
        const cancelled = await deps.jobs.cancel(QUEUES.placeOrder, placeOrderJobId(orderId));
        log.info({ cancelled }, "queued placement cancelled");
      }
      await publishFailed(order, log, options.signal);
    }
    if (!context.completion) {
      const failure = order.failure;
      const retriedForMs = failure?.reason === "workflow_deadline" ? failure.retriedForMs : 0;
      const message = deadlineMessage(order, retriedForMs, mayHaveBeenPlaced(failure));
      await answerFailed(answer, order, context, message, log);
    }
  }

  async function publishFailed(order: Order, log: Logger, signal: AbortSignal): Promise<void> {
    try {
      await showOrder(deps.store, deps.notifier, order, { kind: "failed" }, { signal });
    } catch (error) {
      log.warn({ err: error }, "could not show the deadline failure in Slack");
    }
  }

  /** Answers a workflow whose order ended (placed or failed) but whose step has no answer yet. */
  async function answerEnded(order: Order, context: WorkflowContext, log: Logger): Promise<boolean> {
    if (isPlaced(order)) {
      await answerPlaced(answer, order, context, log);
      await deps.jobs.cancel(QUEUES.workflowDeadline, deadlineJobId(order.id)).catch(() => false);
      return true;
    }
    if (order.status === "failed" && !context.expiredAt) {
      await answerFailed(answer, order, context, placementFailedMessage(order, deps.functions), log);
      await deps.jobs.cancel(QUEUES.workflowDeadline, deadlineJobId(order.id)).catch(() => false);
      return true;
    }
    return false;
  }

  async function onDeadline(orderId: string, log: Logger, signal: AbortSignal): Promise<void> {
    const order = await getOrder(deps.store, orderId);
    const context = parseWorkflowContext(order?.workflow);
    if (!order || !context || context.completion) return;
    if (await answerEnded(order, context, log)) return;
    const remainingMs = Date.parse(context.deadlineAt) - now().getTime();
    // Another replica's clock, or a job picked up early: not yet.
    if (remainingMs > 0) throw new RetryLaterError(remainingMs, "the workflow deadline has not passed yet");
    const placement = await deps.jobs.getJob(QUEUES.placeOrder, placeOrderJobId(orderId));
    if (placement?.state === "active") {
      // That attempt aborts itself at the deadline and answers the workflow; deciding here too would race it.
      throw new RetryLaterError(ACTIVE_ATTEMPT_RECHECK_MS, "a placement attempt is running");
    }
    await expire(orderId, log, { cancelPlacement: true, signal });
  }

  async function placeWithDeadline(
    job: JobContext<PlaceOrderJobData>,
    order: Order,
    context: WorkflowContext,
    log: Logger,
  ) {
    // Ended already, but Slack was not told (it was unreachable): tell it, and never place a refused order again.
    if (await answerEnded(order, context, log)) return;
    if (isPastDeadline(context, now())) {
      return expire(order.id, log, { cancelPlacement: false, signal: job.signal });
    }
    const cutOff = new AbortController();
    const timer = setTimeout(
      () => cutOff.abort(new WorkflowDeadlineReachedError(context.deadlineAt)),
      Date.parse(context.deadlineAt) - now().getTime(),
    );
    let failure: { error: unknown } | null = null;
    try {
      await placeOrder({ ...job, signal: AbortSignal.any([job.signal, cutOff.signal]) });
    } catch (error) {
      failure = { error };
    } finally {
      clearTimeout(timer);
    }
    const after = (await getOrder(deps.store, order.id)) ?? order;
    // Re-read: the deadline job (maybe on another replica) may have expired the order meanwhile.
    const latest = parseWorkflowContext(after.workflow) ?? context;
    if (latest.completion && !isPlaced(after)) return;
    if (await answerEnded(after, latest, log)) {
      if (failure && !isPlaced(after)) throw failure.error; // keeps a permanent failure visible in the queue
      return;
    }
    if (cutOff.signal.aborted || isPastDeadline(context, now())) {
      return expire(order.id, log, {
        cancelPlacement: false,
        attemptCutShort: cutOff.signal.aborted,
        signal: job.signal,
      });
    }
    if (failure) throw failure.error;
  }

  const workflowDeadline: JobHandler<WorkflowDeadlineJobData> = async (job) => {
    const log = baseLogger.child({ jobId: job.id, attempt: job.attempt, orderId: job.data.orderId });
    return onDeadline(job.data.orderId, log, job.signal);
  };

  const placeOrderWithSteps: JobHandler<PlaceOrderJobData> = async (job) => {
    const log = baseLogger.child({ jobId: job.id, attempt: job.attempt });
    const order = await getOrder(deps.store, job.data.orderId);
    const context = parseWorkflowContext(order?.workflow);
    if (!order || !context) return placeOrder(job);
    const orderLog = log.child({ orderId: order.id, functionExecutionId: context.functionExecutionId });

    if (context.expiredAt) {
      if (queuedAt(job) <= Date.parse(context.expiredAt)) {
        orderLog.warn(
          "not placing: the workflow step's deadline passed before this job could place the order",
        );
        if (!context.completion)
          await expire(order.id, orderLog, { cancelPlacement: false, signal: job.signal });
        return;
      }
      return placeOrder(job); // queued after the deadline: a person resubmitted the order by hand
    }
    // The workflow has its answer (e.g. rejected, then fixed and resubmitted by a person): a plain placement.
    if (context.completion) return placeOrder(job);
    return placeWithDeadline(job, order, context, orderLog);
  };
  return { ...placement, placeOrder: placeOrderWithSteps, workflowDeadline };
}
