/**
 * Slack: `auth.test` with the bot token proves the token is valid and names the workspace and bot; the
 * scopes Slack reports for the token are compared with the ones manifest.yml asks for. In Socket Mode a
 * connection is opened as the app opens it (`apps.connections.open` with the app-level token, the WebSocket,
 * Slack's hello), then closed.
 */
import { readFileSync } from "node:fs";
import { SocketModeClient } from "@slack/socket-mode";
import { parse } from "yaml";
import {
  createSlackWebClient,
  type SlackCallError,
  silentSdkLogger,
  slackApiNotFoundHint,
  slackClientOptions,
  toSlackCallError,
} from "../../slack/outbound/index.ts";
import { describeConnectFailure, SocketClosedBeforeHelloError } from "../../slack/socket-errors.ts";
import { type CheckOutcome, describeError, fail, ok, warn } from "../check.ts";

export interface SlackCheckOptions {
  botToken: string;
  /** The fake Slack's URL in the demo and tests; Slack's own otherwise. */
  apiUrl?: string;
  timeoutMs: number;
  /** Bot scopes the app needs; default: manifest.yml's. Unknown (empty) skips the scope comparison. */
  requiredScopes?: readonly string[];
}

/** What Slack's `auth.test` errors mean for whoever runs the doctor. */
const HINTS: Record<string, string> = {
  invalid_auth:
    "the bot token is not valid: copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page into SLACK_BOT_TOKEN",
  not_authed: "no token reached Slack: set SLACK_BOT_TOKEN",
  account_inactive: "the token belongs to a deleted user or a deactivated workspace: reinstall the app",
  token_revoked:
    "the token was revoked (the app was uninstalled?): reinstall the app and update SLACK_BOT_TOKEN",
  token_expired: "the token expired: turn off token rotation for the app or reinstall it",
  team_access_not_granted: "the app is not installed in this workspace: install it from the app's settings",
};

export async function checkSlackAuth(options: SlackCheckOptions): Promise<CheckOutcome> {
  // `background`: the doctor reports a failure (and a 429) at once; the SDK logs nothing, the doctor reports.
  const client = createSlackWebClient({
    token: options.botToken,
    policy: "background",
    timeoutMs: options.timeoutMs,
    apiUrl: options.apiUrl,
    logger: silentSdkLogger,
  });
  let result: Awaited<ReturnType<typeof client.auth.test>>;
  try {
    result = await client.auth.test();
  } catch (error) {
    return fail(explain(toSlackCallError("auth.test", error), options.apiUrl));
  }
  const who = `bot ${result.user ?? "?"} (${result.user_id ?? "?"}) in workspace ${result.team ?? "?"} (${result.team_id ?? "?"})`;
  const granted = result.response_metadata?.scopes;
  const required = options.requiredScopes ?? manifestBotScopes();
  if (granted && required.length > 0) {
    const missing = required.filter((scope) => !granted.includes(scope));
    if (missing.length > 0) {
      return warn(
        `${who}, but the token lacks scopes ${missing.join(", ")}: add them to the app (manifest.yml) and reinstall it`,
      );
    }
  }
  return ok(who);
}

function explain(error: SlackCallError, apiUrl: string | undefined): string {
  switch (error.code) {
    case "SLACK_REFUSED": {
      const code = error.slackError ?? "?";
      return `auth.test: ${code}${HINTS[code] ? ` — ${HINTS[code]}` : ""}`;
    }
    case "SLACK_RATE_LIMITED":
      return `auth.test was rate limited (retry after ${Math.ceil((error.retryAfterMs ?? 0) / 1000)} s); run the doctor again shortly`;
    case "SLACK_HTTP_ERROR":
      if (error.statusCode === 404) return `auth.test: ${slackApiNotFoundHint(apiUrl)}`;
      return `auth.test: HTTP ${error.statusCode} ${error.statusMessage ?? ""} — is SLACK_API_URL right?`;
    case "SLACK_UNREACHABLE":
      if (error.networkError !== undefined) {
        return `could not reach Slack: ${describeError(error.networkError)} — check the network, a proxy, or SLACK_API_URL`;
      }
      return `auth.test failed: ${describeError(error.cause)}`;
    default:
      return `auth.test failed: ${error.message}`;
  }
}

export interface SlackSocketCheckOptions {
  appToken: string;
  apiUrl?: string;
  timeoutMs: number;
  /** The check's deadline: the connection attempt is abandoned (and closed) when it fires. */
  signal?: AbortSignal;
}

/** Opens a Socket Mode connection with the app-level token, waits for Slack's hello, and closes it. */
export async function checkSlackSocket(options: SlackSocketCheckOptions): Promise<CheckOutcome> {
  const client = new SocketModeClient({
    appToken: options.appToken,
    autoReconnectEnabled: false,
    logger: silentSdkLogger,
    clientOptions: slackClientOptions({
      policy: "background",
      timeoutMs: options.timeoutMs,
      apiUrl: options.apiUrl,
    }),
  });
  const abandon = () => void client.disconnect();
  options.signal?.addEventListener("abort", abandon, { once: true });
  const started = performance.now();
  try {
    await client.start();
  } catch (error) {
    return fail(describeConnectFailure(error ?? new SocketClosedBeforeHelloError()).message);
  } finally {
    options.signal?.removeEventListener("abort", abandon);
  }
  const ms = Math.round(performance.now() - started);
  await client.disconnect();
  return ok(
    `SLACK_APP_TOKEN opened a Socket Mode connection; Slack said hello after ${ms} ms (closed again)`,
  );
}

let manifestScopes: readonly string[] | null = null;

/** The bot scopes in manifest.yml (the file ships with the app); empty when it cannot be read. */
export function manifestBotScopes(): readonly string[] {
  if (manifestScopes) return manifestScopes;
  try {
    const manifest = parse(readFileSync(new URL("../../../manifest.yml", import.meta.url), "utf8")) as {
      oauth_config?: { scopes?: { bot?: unknown } };
    };
    const bot = manifest.oauth_config?.scopes?.bot;
    manifestScopes = Array.isArray(bot) ? bot.filter((s): s is string => typeof s === "string") : [];
  } catch {
    manifestScopes = [];
  }
  return manifestScopes;
}
