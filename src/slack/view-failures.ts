/**
 * When Slack does not open (or update) a form the user asked for — an expired trigger, Slack slow or down, an
 * error — the interaction was already acked, so without a word from us the user sees nothing at all. This tells
 * them what happened and what to do, as privately as the interaction allows: an ephemeral reply through its
 * `response_url` (slash commands, shortcuts, message buttons), else an ephemeral message in the channel the form
 * belongs to, else a DM from the app (App Home).
 */
import type { RespondFn } from "@slack/bolt";
import type { Logger } from "pino";
import { slackErrorOf, toSlackCallError, type WebClient } from "./outbound/index.ts";

export interface NoticeTarget {
  userId: string;
  /** Bolt's `respond`, only when the interaction carried a `response_url`. */
  respond?: RespondFn | undefined;
  /** The conversation the form was opened from (an ephemeral message there, when there is no `response_url`). */
  channelId?: string | undefined;
}

/** Slack errors that mean "it took too long": the trigger (valid 3 s) expired while Slack or we were slow. */
const TOO_SLOW = new Set([
  "expired_trigger_id",
  "exchanged_trigger_id",
  "invalid_trigger_id",
  "request_timeout",
]);

type Failure =
  | { kind: "slow" }
  | { kind: "busy" }
  | { kind: "down"; status: number }
  | { kind: "refused"; code: string };

function classify(error: unknown): Failure {
  const failed = toSlackCallError("views", error);
  const code = failed.slackError;
  if (code !== null) return TOO_SLOW.has(code) ? { kind: "slow" } : { kind: "refused", code };
  if (failed.code === "SLACK_RATE_LIMITED") return { kind: "busy" };
  if (failed.code === "SLACK_HTTP_ERROR") return { kind: "down", status: failed.statusCode ?? 0 };
  // A timeout or a dropped connection.
  return { kind: "slow" };
}

/**
 * "Slack took too long to open the order form; run /order again." `retry` says how to try again in the words
 * of the place the user started from ("run /order again", "click Add line again").
 */
export function viewFailureText(error: unknown, action: "open" | "update", retry: string): string {
  const failure = classify(error);
  const form = action === "open" ? "open the order form" : "update the order form";
  const kept = action === "update" ? " What you typed is still in the form." : "";
  switch (failure.kind) {
    case "slow":
      return `Slack took too long to ${form}; ${retry}.${kept}`;
    case "busy":
      return `Slack is busy and did not ${form}; wait a minute, then ${retry}.${kept}`;
    case "down":
      return `Slack did not ${form} (it answered HTTP ${failure.status}); wait a minute, then ${retry}.${kept}`;
    case "refused":
      return (
        `Slack could not ${form} (Slack's error: ${failure.code}); ${retry}.${kept} If it happens again, tell ` +
        "your Order Desk admin: the error is in Order Desk's log."
      );
  }
}

/** Sends `text` to the user by the most private way the interaction allows; falls back down the list. */
export async function notifyUser(
  client: WebClient,
  target: NoticeTarget,
  text: string,
  logger: Logger,
): Promise<void> {
  if (target.respond) {
    try {
      await target.respond({ response_type: "ephemeral", replace_original: false, text });
      return;
    } catch (error) {
      logger.warn({ err: error }, "could not answer through the response_url; trying an ephemeral message");
    }
  }
  if (target.channelId && !/^[UWD]/.test(target.channelId)) {
    try {
      await client.chat.postEphemeral({ channel: target.channelId, user: target.userId, text });
      return;
    } catch (error) {
      logger.warn({ err: error }, "could not post an ephemeral message; sending a DM instead");
    }
  }
  await client.chat.postMessage({ channel: target.userId, text });
}

/** Logs why the form did not open or change, and tells the user; never throws (the listener has acked). */
export async function tellViewFailed(
  client: WebClient,
  target: NoticeTarget,
  error: unknown,
  options: { action: "open" | "update"; retry: string; logger: Logger },
): Promise<void> {
  const { logger } = options;
  logger.warn(
    { err: error, slackError: slackErrorOf(error), userId: target.userId },
    `views.${options.action} failed; telling the user`,
  );
  try {
    await notifyUser(client, target, viewFailureText(error, options.action, options.retry), logger);
  } catch (notifyError) {
    logger.error({ err: notifyError, userId: target.userId }, "could not tell the user the form failed");
  }
}
