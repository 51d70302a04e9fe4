/**
 * Answering the workflow: `functions.completeSuccess` with the step's outputs, or `functions.completeError` with a
 * readable reason, then recording in `orders.workflow` that Slack has its answer. Slack itself keeps the first
 * answer (a second one is refused as `execution_not_in_running_state`), so answering again after a crash is safe.
 */
import type { Logger } from "pino";
import type { Store } from "../../store/db.ts";
import { getOrderForUpdate, setWorkflow } from "../../store/repositories/orders.ts";
import type { Order } from "../model/order.ts";
import type { OrderNotifier } from "../ports.ts";
import { parseWorkflowContext, type WorkflowContext } from "./context.ts";
import type { PlaceOrderOutputs, WorkflowFunctions } from "./ports.ts";

export interface AnswerDeps {
  store: Store;
  functions: WorkflowFunctions;
  notifier: OrderNotifier;
  now: () => Date;
}

/** An order the supplier has (a correlation id, or any status beyond our own queued/placing/failed). */
export function isPlaced(order: Order): boolean {
  return order.correlationId !== null || !["queued", "placing", "failed"].includes(order.status);
}

/** Read-modify-write of the context under the row's lock (the deadline job and a placement may race). */
export async function updateWorkflowContext(
  store: Store,
  orderId: string,
  change: (context: WorkflowContext) => WorkflowContext,
): Promise<void> {
  await store.transaction(async (tx) => {
    const order = await getOrderForUpdate(tx, orderId);
    const context = parseWorkflowContext(order?.workflow);
    if (order && context) await setWorkflow(tx, orderId, change(context));
  });
}

async function recordCompletion(deps: AnswerDeps, orderId: string, outcome: "completed" | "failed") {
  const at = deps.now().toISOString();
  await updateWorkflowContext(deps.store, orderId, (c) => ({
    ...c,
    completion: c.completion ?? { outcome, at },
  }));
}

async function messageLink(deps: AnswerDeps, order: Order): Promise<string> {
  if (order.slackChannelId && order.slackMessageTs) {
    return deps.functions.permalink(order.slackChannelId, order.slackMessageTs);
  }
  // The message could not be posted (the notifier logged why): link to the channel instead.
  const team = order.slackTeamId ? `&team=${encodeURIComponent(order.slackTeamId)}` : "";
  return `https://slack.com/app_redirect?channel=${encodeURIComponent(order.slackChannelId ?? "")}${team}`;
}

export function outputsFor(order: Order, link: string): PlaceOrderOutputs {
  return {
    // Empty only when the supplier reported the order as placed by an earlier, unanswered attempt: its id then
    // arrives with the supplier's first webhook event, in the order's thread.
    correlation_id: order.correlationId ?? "",
    external_document_number: order.externalDocumentNumber,
    order_message_link: link,
  };
}

/** The supplier accepted the order: complete the step with its outputs. Throws when Slack could not be told. */
export async function answerPlaced(
  deps: AnswerDeps,
  order: Order,
  context: WorkflowContext,
  log: Logger,
): Promise<void> {
  if (context.expiredAt) {
    // Only possible when an attempt in flight at the deadline got through: the workflow was told "not placed".
    log.error("the supplier accepted a workflow order after its step had failed at the deadline");
    await deps.notifier
      .alertAdmins({
        key: `workflow-late:${order.id}`,
        title: "A workflow order was placed after its deadline",
        text: `Order ${order.externalDocumentNumber} (${order.customerReference ?? "no ticket"}) was accepted by the supplier after its workflow step had already failed at the deadline. Cancel it with the supplier, or tell the workflow's owner it is coming.`,
      })
      .catch((error) => log.warn({ err: error }, "admin alert failed"));
    await recordCompletion(deps, order.id, "failed");
    return;
  }
  const outputs = outputsFor(order, await messageLink(deps, order));
  const result = await deps.functions.completeSuccess(context.functionExecutionId, outputs);
  log.info({ result, correlationId: order.correlationId }, "workflow step completed");
  await recordCompletion(deps, order.id, "completed");
}

/** The order will not be placed: fail the step with `message`. Throws when Slack could not be told. */
export async function answerFailed(
  deps: AnswerDeps,
  order: Order,
  context: WorkflowContext,
  message: string,
  log: Logger,
): Promise<void> {
  const result = await deps.functions.completeError(context.functionExecutionId, message);
  log.info({ result, status: order.status }, "workflow step failed");
  await recordCompletion(deps, order.id, "failed");
}
