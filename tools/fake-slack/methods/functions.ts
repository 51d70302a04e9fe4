import type { FakeFunctionExecution, Json } from "../state.ts";
import { type Handler, type MethodContext, SlackApiError } from "./context.ts";

/** Output parameters each function must return, as its manifest declares them (`required`). */
export type FunctionOutputs = Record<string, { required: string[] }>;

function running(ctx: MethodContext): FakeFunctionExecution {
  const execution = ctx.ws.executions.get(ctx.args.string("function_execution_id"));
  if (!execution) throw new SlackApiError("function_execution_not_found");
  // A workflow token only speaks for its own execution.
  if (ctx.auth.kind === "function" && ctx.auth.executionId !== execution.id)
    throw new SlackApiError("access_denied");
  if (execution.status !== "running") throw new SlackApiError("execution_not_in_running_state");
  return execution;
}

export function completeSuccess(outputsSpec: FunctionOutputs): Handler {
  return (ctx) => {
    const execution = running(ctx);
    const outputs = ctx.args.json("outputs");
    if (typeof outputs !== "object" || outputs === null || Array.isArray(outputs)) {
      throw new SlackApiError("invalid_arguments", {
        response_metadata: { messages: ["[ERROR] outputs must be an object"] },
      });
    }
    const missing = (outputsSpec[execution.callbackId]?.required ?? []).filter(
      (name) => (outputs as Json)[name] === undefined || (outputs as Json)[name] === null,
    );
    if (missing.length > 0) {
      throw new SlackApiError("parameter_validation_failed", {
        response_metadata: { messages: missing.map((m) => `[ERROR] missing required output: ${m}`) },
      });
    }
    execution.status = "completed";
    execution.outputs = outputs as Json;
    execution.endedAt = ctx.now;
    return {};
  };
}

export const completeError: Handler = (ctx) => {
  const execution = running(ctx);
  execution.status = "failed";
  execution.error = ctx.args.string("error");
  execution.endedAt = ctx.now;
  return {};
};
