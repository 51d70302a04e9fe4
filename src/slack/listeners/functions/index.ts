/**
 * The app's custom workflow steps. Registered through `createSlackApp({ register })`:
 * `register: (app, ctx) => functions.register(app, ctx, { deadlineMs: config.workflowPlacementDeadlineMs })`.
 */
import type { App } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { workflowInputNames } from "../../workflow-inputs.ts";
import { PLACE_ORDER_CALLBACK_ID, placeOrderFunction } from "./place-order-function.ts";

export interface FunctionListenerOptions {
  /** How long an unavailable supplier is retried before the step fails (`WORKFLOW_PLACEMENT_DEADLINE_MS`). */
  deadlineMs: number;
}

export function register(app: App, ctx: SlackContext, options: FunctionListenerOptions): void {
  const { store, jobs, customer, newOrderId, authorizer } = ctx.orders;
  app.function(
    PLACE_ORDER_CALLBACK_ID,
    placeOrderFunction({
      store,
      jobs,
      customer,
      deadlineMs: options.deadlineMs,
      inputNames: workflowInputNames,
      authorizer,
      now: ctx.now,
      logger: ctx.logger,
      ...(newOrderId ? { newOrderId } : {}),
    }),
  );
}
