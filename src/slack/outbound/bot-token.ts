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

export type BotTokenProblem =
  | "SLACK_UNREACHABLE"
  | "SLACK_API_URL_WRONG"
  | "SLACK_TOKEN_REFUSED"
  | "NOT_A_BOT_TOKEN";

/** Why start-up could not confirm the bot token, with what to do in its message. */
export class BotTokenError extends Error {
  override readonly cause: unknown;
  constructor(
    readonly code: BotTokenProblem,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message);
    this.name = "BotTokenError";
    this.cause = options.cause;
  }
}

/** The network error in a few words: its code and message, and its cause's (undici's "fetch failed" hides why). */
function networkReason(error: unknown): string {
  const parts: string[] = [];
  for (
    let e = error as { message?: unknown; code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 3;
    depth++
  ) {
    const message = typeof e.message === "string" ? e.message : "";
    const code = typeof e.code === "string" && !message.includes(e.code) ? e.code : "";
    const text = [code, message].filter(Boolean).join(" ");
    if (text && !parts.some((p) => p.includes(text))) parts.push(text);
    e = e.cause as typeof e;
  }
  return parts.join(": ").replace(/\s+/g, " ") || "no answer";
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
      throw new BotTokenError(
        "NOT_A_BOT_TOKEN",
        "auth.test did not name a bot user: is SLACK_BOT_TOKEN a bot token (xoxb-…)?",
      );
    return { botUserId: result.user_id, botId: result.bot_id };
  } catch (error) {
    if (error instanceof BotTokenError) throw error;
    const failed = toSlackCallError("auth.test", error);
    if (failed.statusCode === 404) {
      throw new BotTokenError(
        "SLACK_API_URL_WRONG",
        `Slack's auth.test failed: ${slackApiNotFoundHint(options.apiUrl)}.`,
        { cause: error },
      );
    }
    if (failed.code === "SLACK_UNREACHABLE" && failed.networkError !== undefined) {
      throw new BotTokenError(
        "SLACK_UNREACHABLE",
        `Could not reach Slack to check the bot token (auth.test: ${networkReason(failed.networkError)}). Check that ` +
          "this host can reach slack.com (network, proxy, firewall) or SLACK_API_URL.",
        { cause: error },
      );
    }
    const reason = failed.slackError ?? (error as Error).message;
    throw new BotTokenError(
      "SLACK_TOKEN_REFUSED",
      `Slack did not accept the bot token (auth.test: ${reason}). Check SLACK_BOT_TOKEN, that the app is installed in ` +
        "the workspace, and that this host can reach slack.com (or SLACK_API_URL).",
      { cause: error },
    );
  }
}
