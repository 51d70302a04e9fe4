/**
 * Starting an order from the Workflow Builder step: the step's inputs become a draft, which goes through
 * `submitOrder` (the modal's rules, the same transaction that stores the order and enqueues its placement). The
 * step's context (execution id, deadline) is stored with the order, and a deadline job is enqueued in the same
 * transaction, so a workflow is answered at its deadline even if the process restarts meanwhile.
 *
 * Who may order: a workflow may order only with a profile that opted in (`allowWorkflows: true` in the customer
 * file), and only in that profile's channels (the same channel rule as `/order`); who may add the step to a workflow
 * is Slack's function access setting (docs/workflows.md). Slack's `function_executed` event does not name the person
 * who ran the workflow, so the step takes them from its optional `requested_by` input: when given, that person is
 * the order's requester, must also be allowed by the profile's allowed users and groups, and cannot approve the
 * order. Without it the requester is the app's bot, and approvals cannot tell who asked.
 */
import { type Logger, pino } from "pino";
import type { Customer } from "../../config/catalog.ts";
import type { Jobs, SendOptions } from "../../jobs/jobs.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { Store } from "../../store/db.ts";
import { getOrderByIdempotencyKey } from "../../store/repositories/orders.ts";
import type { Authorizer } from "../authorization.ts";
import { checkDraft } from "../check.ts";
import type { OrderDraft } from "../draft.ts";
import type { Order } from "../model/order.ts";
import { type PlaceOrderJobData, submitOrder } from "../submit.ts";
import type { WorkflowContext } from "./context.ts";
import { deadlineJob } from "./deadline-job.ts";
import { forbiddenMessage, invalidInputsMessage, workflowsNotAllowedMessage } from "./messages.ts";
import type { StepInputNames, WorkflowDraftResult } from "./ports.ts";

export interface WorkflowStartDeps {
  store: Store;
  jobs: Pick<Jobs, "send">;
  customer: Customer;
  /** How long an unavailable supplier is retried before the step fails (config `workflowPlacementDeadlineMs`). */
  deadlineMs: number;
  /** How problems name the step's inputs (slack/workflow-inputs.ts). */
  inputNames: StepInputNames;
  /** The people rule (`allowedUsers`, `allowedUserGroups`) for a `requested_by` person; without it, not checked. */
  authorizer?: Authorizer;
  now?: () => Date;
  newOrderId?: () => string;
  logger?: Logger;
}

/** One run of the step, as Slack's `function_executed` event describes it. */
export interface FunctionExecution {
  functionExecutionId: string;
  workflowExecutionId: string | null;
  callbackId: string;
  /** The step's inputs, read at the boundary (slack/workflow-inputs.ts). */
  inputs: WorkflowDraftResult;
  teamId?: string | undefined;
  /** Recorded as the order's requester when the step names no `requested_by` person: the app's bot user. */
  requestedBy: string;
}

export type WorkflowStart =
  | { status: "queued"; order: Order; created: boolean }
  | { status: "invalid"; problems: string[]; message: string }
  | { status: "forbidden"; message: string };

/** The same execution delivered twice (Slack re-delivers an event it thinks was not acknowledged) → one order. */
export function workflowIdempotencyKey(functionExecutionId: string): string {
  return `function:${functionExecutionId}`;
}

/** The order a run of the step created, if any (a re-delivered event finds it). */
export function findWorkflowOrder(store: Store, functionExecutionId: string): Promise<Order | null> {
  return getOrderByIdempotencyKey(store, workflowIdempotencyKey(functionExecutionId));
}

/** A workflow may order with a profile that allows workflows, in that profile's channels; see the file comment. */
export const workflowAuthorizer: Authorizer = {
  check: async (profile) =>
    profile.allowWorkflows
      ? { allowed: true }
      : {
          allowed: false,
          reason: "workflows_not_allowed",
          message: workflowsNotAllowedMessage(profile.name),
        },
  isListed: (profile) => profile.allowWorkflows,
};

/** The workflow rule, and the profile's people rule for the `requested_by` person when the step names one. */
function personAuthorizer(people: Authorizer | undefined, requestedBy: string | null): Authorizer {
  if (!people || requestedBy === null) return workflowAuthorizer;
  return {
    check: async (profile, userId) => {
      const workflow = await workflowAuthorizer.check(profile, userId);
      return workflow.allowed ? people.check(profile, requestedBy) : workflow;
    },
    isListed: (profile) => profile.allowWorkflows && people.isListed(profile, requestedBy),
  };
}

function refusalFor(customer: Customer, profileName: string): string | null {
  const profile = customer.profile(profileName);
  return profile && !profile.allowWorkflows
    ? forbiddenMessage(workflowsNotAllowedMessage(profile.name))
    : null;
}

/**
 * The step's error when its inputs lead to a profile that does not allow workflows, else null: lets the listener
 * refuse before it asks Slack anything about the channel. `startWorkflowOrder` checks again.
 */
export function workflowRefusal(customer: Customer, inputs: WorkflowDraftResult): string | null {
  return refusalFor(customer, inputs.draft.profile);
}

/**
 * The inputs could not all be read (an unknown profile, "Garden" for Office/Home, an unreadable item): the modal's
 * rules still run on the rest, so the workflow author sees every bad input in one go. Fields the first pass
 * already named are left out, and so is the profile (without one, the pass names the channel or profile input).
 */
function otherProblems(
  draft: OrderDraft,
  known: readonly string[],
  deps: Pick<WorkflowStartDeps, "customer" | "inputNames">,
  now: Date,
): string[] {
  const { customer, inputNames } = deps;
  const checked = checkDraft(draft, customer, { now });
  if (checked.ok) return [];
  const named = new Set(known.map((p) => /\((\w+)\):/.exec(p)?.[1]).filter(Boolean));
  const errors = Object.fromEntries(
    Object.entries(checked.errors).filter(
      ([field]) => field !== "profile" && !named.has(inputNames.inputForField(field)),
    ),
  );
  return inputNames.describeErrors(errors);
}

export async function startWorkflowOrder(
  deps: WorkflowStartDeps,
  execution: FunctionExecution,
): Promise<WorkflowStart> {
  const now = deps.now ?? (() => new Date());
  const logger = (deps.logger ?? pino({ level: "silent" })).child({
    functionExecutionId: execution.functionExecutionId,
  });
  const parsed = execution.inputs;
  // "Not allowed" before any list of bad inputs: fixing them would be wasted effort.
  const refusal = refusalFor(deps.customer, parsed.draft.profile);
  if (refusal) {
    logger.info(
      { profile: parsed.draft.profile },
      "workflow step refused: the profile does not allow workflows",
    );
    return { status: "forbidden", message: refusal };
  }
  if (!parsed.ok) {
    const problems = [...parsed.problems, ...otherProblems(parsed.draft, parsed.problems, deps, now())];
    logger.info({ problems: problems.length }, "workflow step inputs are invalid");
    return { status: "invalid", problems, message: invalidInputsMessage(problems) };
  }

  const startedAt = now();
  const context: WorkflowContext = {
    functionExecutionId: execution.functionExecutionId,
    workflowExecutionId: execution.workflowExecutionId,
    callbackId: execution.callbackId,
    recipientUserId: parsed.recipientUserId,
    startedAt: startedAt.toISOString(),
    deadlineAt: new Date(startedAt.getTime() + deps.deadlineMs).toISOString(),
  };
  // The deadline job rides in submitOrder's transaction: enqueued exactly when the placement is.
  const jobs: Pick<Jobs, "send"> = {
    async send(queue, data, options: SendOptions = {}) {
      const id = await deps.jobs.send(queue, data, options);
      const orderId = (data as Partial<PlaceOrderJobData>).orderId;
      if (queue === QUEUES.placeOrder && typeof orderId === "string") {
        const deadline = deadlineJob(orderId, new Date(context.deadlineAt));
        await deps.jobs.send(QUEUES.workflowDeadline, deadline.data, {
          id: deadline.id,
          startAfter: deadline.startAfter,
          ...(options.tx ? { tx: options.tx } : {}),
        });
      }
      return id;
    },
  };

  const result = await submitOrder(
    {
      store: deps.store,
      jobs,
      customer: deps.customer,
      authorizer: personAuthorizer(deps.authorizer, parsed.requestedBy ?? null),
      now: () => startedAt,
      ...(deps.newOrderId ? { newOrderId: deps.newOrderId } : {}),
      logger,
    },
    parsed.draft,
    {
      source: "workflow",
      requestedBy: parsed.requestedBy ?? execution.requestedBy,
      idempotencyKey: workflowIdempotencyKey(execution.functionExecutionId),
      teamId: execution.teamId,
      channelId: parsed.channelId,
      workflow: context,
    },
  );
  switch (result.status) {
    case "queued":
      logger.info(
        { orderId: result.order.id, created: result.created, deadlineAt: context.deadlineAt },
        result.created ? "workflow order stored and queued" : "workflow step re-delivered; the order exists",
      );
      return result;
    case "invalid": {
      const problems = deps.inputNames.describeErrors(result.errors);
      logger.info({ problems: problems.length }, "workflow step inputs fail the order rules");
      return { status: "invalid", problems, message: invalidInputsMessage(problems) };
    }
    case "forbidden":
      return { status: "forbidden", message: forbiddenMessage(result.message) };
  }
}
