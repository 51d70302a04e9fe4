/**
 * Every failed Web API call, whatever the SDK threw, becomes one `SlackCallError` through one function,
 * `toSlackCallError`. The rest of slack/ switches on its `code`, `slackError` and `retryAfterMs`; it never looks
 * at the SDK's error classes. The SDK's errors are recognised by their `code` (not `instanceof`), so a second
 * copy of @slack/web-api (Bolt's own, after an upgrade) cannot slip past.
 */
import { ErrorCode } from "@slack/web-api";
import { retryAfterMsOf } from "./policies.ts";

export type SlackCallErrorCode =
  /** 429: Slack did not act on the call; `retryAfterMs` says when to try again. */
  | "SLACK_RATE_LIMITED"
  /** Slack answered `ok: false`; `slackError` says why (`not_in_channel`, `msg_too_long`…). */
  | "SLACK_REFUSED"
  /** An HTTP error status without Slack's answer (a 5xx, a proxy's 404). */
  | "SLACK_HTTP_ERROR"
  /** The call did not reach Slack, or its answer did not come back (network, timeout). */
  | "SLACK_UNREACHABLE"
  /** Slack said `ok` but the answer lacked what the call is for (a message's `ts`). */
  | "SLACK_BAD_ANSWER";

export interface SlackCallErrorDetails {
  slackError?: string | null;
  retryAfterMs?: number | null;
  statusCode?: number | null;
  statusMessage?: string | null;
  networkError?: unknown;
  cause?: unknown;
}

export class SlackCallError extends Error {
  override readonly cause: unknown;
  /** Slack's `error` when it answered one (`not_in_channel`), else null. */
  readonly slackError: string | null;
  /** Rate limited: how long to wait before calling again (Slack's Retry-After, at least 1 s). */
  readonly retryAfterMs: number | null;
  /** The HTTP status of an answer that was not Slack's JSON. */
  readonly statusCode: number | null;
  readonly statusMessage: string | null;
  /** Did not reach Slack: the network or timeout error the SDK reported (undefined for anything else thrown). */
  readonly networkError: unknown;

  constructor(
    readonly code: SlackCallErrorCode,
    /** The Web API method, e.g. `chat.postMessage`. */
    readonly method: string,
    message: string,
    details: SlackCallErrorDetails = {},
  ) {
    super(message);
    this.name = "SlackCallError";
    this.cause = details.cause;
    this.slackError = details.slackError ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
    this.statusCode = details.statusCode ?? null;
    this.statusMessage = details.statusMessage ?? null;
    this.networkError = details.networkError;
  }
}

/** The fields of the SDK's errors this reads (WebAPIPlatformError, WebAPIRateLimitedError, …). */
interface SdkError {
  code?: unknown;
  message?: unknown;
  data?: { error?: unknown };
  retryAfter?: unknown;
  statusCode?: unknown;
  statusMessage?: unknown;
  original?: unknown;
}

/** The one mapping of the SDK's errors (and anything else a call threw) to ours. A `SlackCallError` passes. */
export function toSlackCallError(method: string, error: unknown): SlackCallError {
  if (error instanceof SlackCallError) return error;
  const e = (typeof error === "object" && error !== null ? error : {}) as SdkError;
  switch (e.code) {
    case ErrorCode.RateLimitedError: {
      const retryAfterMs = retryAfterMsOf(Number(e.retryAfter) || 0);
      return new SlackCallError(
        "SLACK_RATE_LIMITED",
        method,
        `Slack rate-limited ${method}; retry after ${Math.ceil(retryAfterMs / 1000)} s`,
        { retryAfterMs, cause: error },
      );
    }
    case ErrorCode.PlatformError: {
      const slackError = String(e.data?.error);
      return new SlackCallError("SLACK_REFUSED", method, `Slack refused ${method}: ${slackError}`, {
        slackError,
        cause: error,
      });
    }
    case ErrorCode.HTTPError: {
      const statusCode = Number(e.statusCode);
      return new SlackCallError(
        "SLACK_HTTP_ERROR",
        method,
        `Slack answered HTTP ${statusCode} to ${method}`,
        {
          statusCode,
          statusMessage: typeof e.statusMessage === "string" ? e.statusMessage : null,
          cause: error,
        },
      );
    }
    default: {
      const reason = error instanceof Error ? error.message : String(error);
      return new SlackCallError("SLACK_UNREACHABLE", method, `${method} did not reach Slack: ${reason}`, {
        ...(e.code === ErrorCode.RequestError ? { networkError: e.original } : {}),
        cause: error,
      });
    }
  }
}

/** The platform error code (`not_in_channel`, `hash_conflict`…) a failed call carried, or null. */
export function slackErrorOf(error: unknown): string | null {
  return toSlackCallError("", error).slackError;
}

/** The bot cannot write in this conversation: not a member, private and unknown to it, or archived. */
export function isCannotPostHere(error: unknown): boolean {
  const code = slackErrorOf(error);
  return code === "not_in_channel" || code === "channel_not_found" || code === "is_archived";
}

/** An HTTP 404 from the Web API: `SLACK_API_URL` is wrong (see api-url.ts). */
export function isNotFound(error: unknown): boolean {
  return toSlackCallError("", error).statusCode === 404;
}
