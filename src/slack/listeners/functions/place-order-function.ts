/**
 * The "Place IT order" Workflow Builder step (`place_order` in manifest.yml). Bolt acknowledges the
 * `function_executed` event before this runs (autoAcknowledge), so Slack does not re-deliver it while the order is
 * stored. Invalid inputs fail the step at once, naming each input; a valid order is stored and queued, and the
 * placement job completes the step when the supplier accepts it (src/orders/workflow/placement-job.ts).
 */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { type Logger, pino } from "pino";
import { internalErrorMessage, invalidInputsMessage } from "../../../orders/workflow/messages.ts";
import {
  findWorkflowOrder,
  startWorkflowOrder,
  type WorkflowStart,
  type WorkflowStartDeps,
  workflowRefusal,
} from "../../../orders/workflow/start.ts";
import { slackErrorOf, type WebClient } from "../../outbound/index.ts";
import {
  draftFromWorkflowInputs,
  WORKFLOW_INPUT_TITLES,
  type WorkflowInputs,
} from "../../workflow-inputs.ts";

export const PLACE_ORDER_CALLBACK_ID = "place_order";

export type PlaceOrderFunctionDeps = WorkflowStartDeps;

type Args = SlackEventMiddlewareArgs<"function_executed"> & AllMiddlewareArgs;

/** Slack's answer when the step already ended (a re-delivered event, failed by the first delivery). */
function alreadyEnded(error: unknown): boolean {
  const code = slackErrorOf(error);
  return code === "execution_not_in_running_state" || code === "function_execution_not_found";
}

const CHANNEL_INPUT = `${WORKFLOW_INPUT_TITLES.channel} (channel)`;

/**
 * The order's message must go to the chosen channel (its thread carries the shipping updates), and a workflow
 * has no person to receive a DM instead: a channel the bot cannot post in fails the step before anything is
 * stored. A lookup that fails for another reason does not block the order.
 */
async function channelProblem(client: WebClient, channelId: string, log: Logger): Promise<string | null> {
  try {
    const { channel } = await client.conversations.info({ channel: channelId });
    const name = channel?.name ? `#${channel.name}` : `channel ${channelId}`;
    if (channel?.is_archived) return `${CHANNEL_INPUT}: ${name} is archived; choose another channel.`;
    if (channel?.is_member === false) {
      return `${CHANNEL_INPUT}: Order Desk is not a member of ${name}; add it with /invite @Order Desk in that channel.`;
    }
    return null;
  } catch (error) {
    if (slackErrorOf(error) === "channel_not_found") {
      return `${CHANNEL_INPUT}: Order Desk cannot see channel ${channelId}; if it is private, add Order Desk to it with /invite @Order Desk.`;
    }
    log.warn({ err: error, channelId }, "could not check the workflow's channel; going ahead");
    return null;
  }
}

export function placeOrderFunction(deps: PlaceOrderFunctionDeps) {
  const baseLogger = deps.logger ?? pino({ level: "silent" });

  async function failStep(fail: Args["fail"], message: string, log: Logger): Promise<void> {
    try {
      await fail({ error: message });
    } catch (error) {
      if (alreadyEnded(error)) log.info("the workflow step had already ended");
      else log.error({ err: error }, "could not fail the workflow step in Slack");
    }
  }

  return async ({ event, context, client, fail }: Args): Promise<void> => {
    const log = baseLogger.child({ functionExecutionId: event.function_execution_id });
    // Slack re-delivers an event it thinks was not acknowledged: the first delivery's order carries on.
    const existing = await findWorkflowOrder(deps.store, event.function_execution_id).catch(() => null);
    if (existing) {
      log.info({ orderId: existing.id }, "function_executed re-delivered; the order already exists");
      return;
    }
    const inputs = (event.inputs ?? {}) as WorkflowInputs;
    const read = draftFromWorkflowInputs(inputs, deps.customer);
    const refusal = workflowRefusal(deps.customer, read);
    if (refusal) {
      log.info("workflow step refused: its profile does not allow workflows");
      return failStep(fail, refusal, log);
    }
    const channelId = inputs.channel;
    if (typeof channelId === "string" && channelId !== "") {
      const problem = await channelProblem(client, channelId, log);
      if (problem) return failStep(fail, invalidInputsMessage([problem]), log);
    }
    let result: WorkflowStart;
    try {
      result = await startWorkflowOrder(deps, {
        functionExecutionId: event.function_execution_id,
        workflowExecutionId: event.workflow_execution_id ?? null,
        callbackId: event.function.callback_id,
        inputs: read,
        teamId: context.teamId,
        requestedBy: context.botUserId ?? "workflow",
      });
    } catch (error) {
      log.error({ err: error }, "could not start the workflow order");
      await failStep(fail, internalErrorMessage(), log);
      return;
    }
    // Queued: the placement job answers the step (completeSuccess with the outputs, or completeError).
    if (result.status !== "queued") await failStep(fail, result.message, log);
  };
}
