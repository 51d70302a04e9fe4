/**
 * Slack's `auth.test` at start-up, before anything is served: the bot's ids for Bolt, or a clear error saying what
 * to check (a crash inside Bolt's constructor cannot be caught).
 */
import { LogLevel, WebClient } from "@slack/web-api";
import type { Config } from "../config.ts";
import { isNotFound, slackApiNotFoundHint } from "./api-url.ts";

/** The bot token must work before anything is served: a clear start-up error beats a crash inside Bolt. */
export async function checkSlackToken(config: Config): Promise<{ botUserId: string; botId: string }> {
  const client = new WebClient(config.slack.botToken, {
    timeout: config.slack.timeoutMs,
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1000 },
    ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
    logLevel: LogLevel.ERROR,
  });
  try {
    const result = await client.auth.test();
    if (!result.user_id || !result.bot_id)
      throw new Error("auth.test did not name a bot user: is SLACK_BOT_TOKEN a bot token?");
    return { botUserId: result.user_id, botId: result.bot_id };
  } catch (error) {
    if (isNotFound(error)) {
      throw new Error(`Slack's auth.test failed: ${slackApiNotFoundHint(config.slack.apiUrl)}.`, {
        cause: error,
      });
    }
    const reason = (error as { data?: { error?: string } }).data?.error ?? (error as Error).message;
    throw new Error(
      `Slack did not accept the bot token (auth.test: ${reason}). Check SLACK_BOT_TOKEN, that the app is installed in ` +
        "the workspace, and that this host can reach slack.com (or SLACK_API_URL).",
      { cause: error },
    );
  }
}
