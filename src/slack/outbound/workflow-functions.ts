/**
 * The workflow step's port (orders/workflow/ports.ts) over Slack's Web API with the app's bot token
 * (`functions.complete*` need no scope and accept a bot token, so the execution's short-lived workflow token is
 * never stored). Built on the `background` policy: every call has a timeout and is not re-sent by the SDK; a
 * failure (a 429 too) becomes a retried placement job instead of a blocked worker.
 */
import { type Logger, pino } from "pino";
import { FunctionCompletionError } from "../../orders/workflow/errors.ts";
import type { CompletionResult, PlaceOrderOutputs, WorkflowFunctions } from "../../orders/workflow/ports.ts";
import { workflowInputNames } from "../workflow-inputs.ts";
import { createSlackWebClient, type WebClient } from "./client.ts";
import { toSlackCallError } from "./errors.ts";
import { slackSdkLogger } from "./sdk-logger.ts";

export interface SlackWorkflowFunctionsOptions {
  token: string;
  /** The fake Slack in tests and the demo. */
  apiUrl?: string;
  /** Per call. */
  timeoutMs: number;
  logger?: Logger;
}

/** Slack's answers meaning "this execution is over": telling it again cannot help. */
const ENDED = new Set(["execution_not_in_running_state", "function_execution_not_found"]);

/** Slack's answer as the port's outcome: the step could not be told (yet). */
function toCompletionError(method: string, error: unknown): FunctionCompletionError {
  const failed = toSlackCallError(method, error);
  if (failed.code === "SLACK_RATE_LIMITED") {
    return new FunctionCompletionError(method, "ratelimited", `Slack rate-limited ${method}; retrying`, {
      cause: error,
      retryAfterMs: failed.retryAfterMs ?? 1000,
    });
  }
  return new FunctionCompletionError(method, failed.slackError, failed.message, { cause: error });
}

export function slackWorkflowFunctionsFromClient(client: WebClient, logger?: Logger): WorkflowFunctions {
  const log = logger ?? pino({ level: "silent" });

  async function complete(method: string, call: () => Promise<unknown>): Promise<CompletionResult> {
    try {
      await call();
      return "completed";
    } catch (error) {
      const slackError = toSlackCallError(method, error).slackError;
      if (slackError !== null && ENDED.has(slackError)) {
        log.info({ method, slackError }, "the workflow step had already ended");
        return "already_ended";
      }
      throw toCompletionError(method, error);
    }
  }

  return {
    ...workflowInputNames,
    completeSuccess: (functionExecutionId: string, outputs: PlaceOrderOutputs) =>
      complete("functions.completeSuccess", () =>
        client.functions.completeSuccess({
          function_execution_id: functionExecutionId,
          outputs: { ...outputs },
        }),
      ),
    completeError: (functionExecutionId: string, message: string) =>
      complete("functions.completeError", () =>
        client.functions.completeError({ function_execution_id: functionExecutionId, error: message }),
      ),
    async permalink(channelId, messageTs) {
      let permalink: unknown;
      try {
        permalink = (await client.chat.getPermalink({ channel: channelId, message_ts: messageTs })).permalink;
      } catch (error) {
        throw toCompletionError("chat.getPermalink", error);
      }
      if (typeof permalink !== "string") {
        throw new FunctionCompletionError("chat.getPermalink", null, "Slack's answer had no permalink");
      }
      return permalink;
    },
  };
}

export function createSlackWorkflowFunctions(options: SlackWorkflowFunctionsOptions): WorkflowFunctions {
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "workflow-step" });
  const client = createSlackWebClient({
    token: options.token,
    policy: "background",
    timeoutMs: options.timeoutMs,
    apiUrl: options.apiUrl,
    logger: slackSdkLogger(logger),
  });
  return slackWorkflowFunctionsFromClient(client, logger);
}
