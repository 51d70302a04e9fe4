/**
 * The bot token must work before anything is served: a clear start-up error beats a crash inside Bolt. Its
 * `auth.test` also names the bot, which Bolt would otherwise ask for in its constructor, where a failure cannot
 * be caught.
 */
import { slackApiNotFoundHint } from "./api-url.ts";
import { createSlackWebClient, LogLevel } from "./client.ts";
import { toSlackCallError } from "./errors.ts";

export interface BotIdentity {
  botUserId: string;
  botId: string;
}

export async function checkBotToken(options: {
  token: string;
  timeoutMs: number;
  apiUrl?: string | undefined;
}): Promise<BotIdentity> {
  // `interactive`: start-up waits for the answer, and a blip should not stop it.
  const client = createSlackWebClient({ ...options, policy: "interactive", logLevel: LogLevel.ERROR });
  try {
    const result = await client.auth.test();
    if (!result.user_id || !result.bot_id)
      throw new Error("auth.test did not name a bot user: is SLACK_BOT_TOKEN a bot token?");
    return { botUserId: result.user_id, botId: result.bot_id };
  } catch (error) {
    const failed = toSlackCallError("auth.test", error);
    if (failed.statusCode === 404) {
      throw new Error(`Slack's auth.test failed: ${slackApiNotFoundHint(options.apiUrl)}.`, {
        cause: error,
      });
    }
    const reason = failed.slackError ?? (error as Error).message;
    throw new Error(
      `Slack did not accept the bot token (auth.test: ${reason}). Check SLACK_BOT_TOKEN, that the app is installed in ` +
        "the workspace, and that this host can reach slack.com (or SLACK_API_URL).",
      { cause: error },
    );
  }
}
