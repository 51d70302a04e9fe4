/**
 * `WorkflowFunctions` over Slack's Web API with the app's bot token (`functions.complete*` need no scope and
 * accept a bot token, so the execution's short-lived workflow token is never stored). Every call has a timeout and
 * is not retried inside the SDK: a failure becomes a retried placement job instead of a blocked worker.
 */
import { webApi } from "@slack/bolt";
import { type Logger, pino } from "pino";
import { slackSdkLogger } from "../../log.ts";
import { FunctionCompletionError } from "./errors.ts";
import type { CompletionResult, PlaceOrderOutputs, WorkflowFunctions } from "./ports.ts";

export interface SlackWorkflowFunctionsOptions {
  token: string;
  /** The fake Slack in tests and the demo. */
  apiUrl?: string;
  /** Per-call timeout (default 10 s). */
  timeoutMs?: number;
  logger?: Logger;
}

/** Slack's answers meaning "this execution is over": telling it again cannot help. */
const ENDED = new Set(["execution_not_in_running_state", "function_execution_not_found"]);

function toCompletionError(method: string, error: unknown): FunctionCompletionError {
  if (error instanceof webApi.WebAPIRateLimitedError) {
    return new FunctionCompletionError(method, "ratelimited", `Slack rate-limited ${method}; retrying`, {
      cause: error,
      retryAfterMs: Math.max(1, error.retryAfter) * 1000,
    });
  }
  if (error instanceof webApi.WebAPIPlatformError) {
    const code = String(error.data.error);
    return new FunctionCompletionError(method, code, `Slack refused ${method}: ${code}`, { cause: error });
  }
  if (error instanceof webApi.WebAPIHTTPError) {
    return new FunctionCompletionError(method, null, `Slack answered HTTP ${error.statusCode} to ${method}`, {
      cause: error,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new FunctionCompletionError(method, null, `${method} did not reach Slack: ${reason}`, {
    cause: error,
  });
}

export function slackWorkflowFunctionsFromClient(
  client: webApi.WebClient,
  logger?: Logger,
): WorkflowFunctions {
  const log = logger ?? pino({ level: "silent" });

  async function complete(method: string, call: () => Promise<unknown>): Promise<CompletionResult> {
    try {
      await call();
      return "completed";
    } catch (error) {
      if (error instanceof webApi.WebAPIPlatformError && ENDED.has(String(error.data.error))) {
        log.info({ method, slackError: error.data.error }, "the workflow step had already ended");
        return "already_ended";
      }
      throw toCompletionError(method, error);
    }
  }

  return {
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
      try {
        const result = await client.chat.getPermalink({ channel: channelId, message_ts: messageTs });
        if (typeof result.permalink !== "string") {
          throw new FunctionCompletionError("chat.getPermalink", null, "Slack's answer had no permalink");
        }
        return result.permalink;
      } catch (error) {
        if (error instanceof FunctionCompletionError) throw error;
        throw toCompletionError("chat.getPermalink", error);
      }
    },
  };
}

export function createSlackWorkflowFunctions(options: SlackWorkflowFunctionsOptions): WorkflowFunctions {
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "workflow-step" });
  const client = new webApi.WebClient(options.token, {
    ...(options.apiUrl && { slackApiUrl: options.apiUrl }),
    timeout: options.timeoutMs ?? 10_000,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    logger: slackSdkLogger(logger),
  });
  return slackWorkflowFunctionsFromClient(client, logger);
}
