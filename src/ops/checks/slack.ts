/**
 * Slack: `auth.test` with the bot token proves the token is valid and names the workspace and bot; the
 * scopes Slack reports for the token are compared with the ones manifest.yml asks for. In Socket Mode a
 * connection is opened as the app opens it (`apps.connections.open` with the app-level token, the WebSocket,
 * Slack's hello), then closed.
 */
import { readFileSync } from "node:fs";
import { webApi } from "@slack/bolt";
import { SocketModeClient } from "@slack/socket-mode";
import { parse } from "yaml";
import { isNotFound, slackApiNotFoundHint } from "../../slack/api-url.ts";
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

// The WebClient logs each failed call itself; the doctor reports it instead.
const silent: webApi.Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => webApi.LogLevel.ERROR,
  setName() {},
};

export async function checkSlackAuth(options: SlackCheckOptions): Promise<CheckOutcome> {
  const client = new webApi.WebClient(options.botToken, {
    ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
    timeout: options.timeoutMs,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: silent,
  });
  let result: webApi.AuthTestResponse;
  try {
    result = await client.auth.test();
  } catch (error) {
    return fail(explain(error, options.apiUrl));
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

function explain(error: unknown, apiUrl: string | undefined): string {
  if (error instanceof webApi.WebAPIPlatformError) {
    const code = error.data.error;
    return `auth.test: ${code}${HINTS[code] ? ` — ${HINTS[code]}` : ""}`;
  }
  if (error instanceof webApi.WebAPIRateLimitedError) {
    return `auth.test was rate limited (retry after ${error.retryAfter} s); run the doctor again shortly`;
  }
  if (isNotFound(error)) return `auth.test: ${slackApiNotFoundHint(apiUrl)}`;
  if (error instanceof webApi.WebAPIHTTPError) {
    return `auth.test: HTTP ${error.statusCode} ${error.statusMessage} — is SLACK_API_URL right?`;
  }
  if (error instanceof webApi.WebAPIRequestError) {
    return `could not reach Slack: ${describeError(error.original)} — check the network, a proxy, or SLACK_API_URL`;
  }
  return `auth.test failed: ${describeError(error)}`;
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
    logger: silent,
    clientOptions: {
      ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
      timeout: options.timeoutMs,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    },
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
