/**
 * Why a Socket Mode connection could not be opened, in one place for the app (logs, metrics, start-up) and
 * `order-desk doctor`: a short label for metrics, a sentence saying what to do, and whether waiting can help.
 */
import { UnrecoverableSocketModeStartError } from "@slack/socket-mode";
import { toSlackCallError } from "./outbound/index.ts";

/** What `apps.connections.open`'s refusals mean for whoever configures SLACK_APP_TOKEN. */
const HINTS: Record<string, string> = {
  invalid_auth:
    "SLACK_APP_TOKEN is not valid: generate an app-level token with the connections:write scope (app settings → Basic Information → App-Level Tokens)",
  not_authed: "no token reached Slack: set SLACK_APP_TOKEN",
  not_allowed_token_type:
    "SLACK_APP_TOKEN must be the app-level token (xapp-…) with connections:write, not the bot token",
  missing_scope: "the app-level token lacks connections:write: generate one with that scope",
  account_inactive: "the app's workspace or owner was deactivated: reinstall the app",
  team_disabled: "the workspace is disabled",
  user_removed_from_team: "the app's owner left the workspace: reinstall the app",
};

/** Refusals that no retry cures: a wrong or revoked token, a disabled workspace. */
const PERMANENT = new Set<string>([
  ...Object.values(UnrecoverableSocketModeStartError),
  "not_allowed_token_type",
  "missing_scope",
  "token_revoked",
]);

export interface ConnectFailure {
  /** Bounded, for the metric's label: `http_503`, `ratelimited`, `invalid_auth`, `timeout`… */
  label: string;
  message: string;
  /** Slack refused the token: retrying will not help. */
  permanent: boolean;
  /** Slack said when to try again (a 429). */
  retryAfterMs?: number;
}

/** The hello did not come in time (the WebSocket never opened, or Slack stayed silent). */
export class SocketHelloTimeoutError extends Error {
  readonly code = "SLACK_SOCKET_HELLO_TIMEOUT";
  constructor(readonly timeoutMs: number) {
    super(`no hello from Slack within ${timeoutMs} ms of asking for a connection`);
    this.name = "SocketHelloTimeoutError";
  }
}

/** The connection closed before Slack's hello (the WebSocket handshake failed or was cut). */
export class SocketClosedBeforeHelloError extends Error {
  readonly code = "SLACK_SOCKET_CLOSED_BEFORE_HELLO";
  constructor() {
    super("the WebSocket to Slack closed before Slack said hello");
    this.name = "SocketClosedBeforeHelloError";
  }
}

/** Slack refused the app-level token when Order Desk started: configuration, not an outage. */
export class SlackAppTokenRefusedError extends Error {
  readonly code = "SLACK_APP_TOKEN_REFUSED";
  override readonly cause: unknown;
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = "SlackAppTokenRefusedError";
    this.cause = options.cause;
  }
}

export function describeConnectFailure(error: unknown): ConnectFailure {
  const failed = toSlackCallError("apps.connections.open", error);
  if (failed.code === "SLACK_REFUSED") {
    const code = failed.slackError ?? "?";
    const hint = HINTS[code];
    return {
      label: code,
      message: `apps.connections.open: ${code}${hint ? ` — ${hint}` : ""}`,
      permanent: PERMANENT.has(code),
    };
  }
  if (failed.code === "SLACK_RATE_LIMITED") {
    const retryAfterMs = failed.retryAfterMs ?? 1000;
    return {
      label: "ratelimited",
      message: `apps.connections.open was rate limited (retry after ${retryAfterMs / 1000} s)`,
      permanent: false,
      retryAfterMs,
    };
  }
  if (failed.code === "SLACK_HTTP_ERROR") {
    return {
      label: `http_${failed.statusCode}`,
      message: `apps.connections.open: HTTP ${failed.statusCode} ${failed.statusMessage ?? ""}`,
      permanent: false,
    };
  }
  if (failed.networkError !== undefined) {
    const original = failed.networkError as
      | { name?: string; message?: string; cause?: { code?: string; message?: string } }
      | undefined;
    const timeout = original?.name === "TimeoutError" || original?.name === "AbortError";
    // fetch's own message ("fetch failed") says little; its cause names the network error.
    const cause = original?.cause?.code ?? original?.cause?.message;
    return {
      label: timeout ? "timeout" : "unreachable",
      message: `could not reach Slack for apps.connections.open: ${original?.message ?? (error as Error).message}${cause ? ` (${cause})` : ""}`,
      permanent: false,
    };
  }
  if (error instanceof SocketHelloTimeoutError)
    return { label: "timeout", message: error.message, permanent: false };
  if (error instanceof SocketClosedBeforeHelloError)
    return { label: "closed_before_hello", message: error.message, permanent: false };
  return { label: "other", message: (error as Error)?.message ?? String(error), permanent: false };
}
