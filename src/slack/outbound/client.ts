/**
 * The one place a Slack Web API client is made. Every client names its retry policy (policies.ts) and has an
 * explicit per-call timeout; the SDK's own defaults (no timeout, ~30 minutes of retries) are never used.
 */
import { type Logger, LogLevel, WebClient, type WebClientOptions } from "@slack/web-api";
import { RETRY_POLICIES, type RetryPolicyName } from "./policies.ts";

export type { WebClient } from "@slack/web-api";
export { LogLevel };

export interface SlackClientSettings {
  policy: RetryPolicyName;
  /** Per call; required, so that no call can wait forever. */
  timeoutMs: number;
  /** The Web API's base URL (`SLACK_API_URL`: the fake Slack in tests and the demo, a proxy). */
  apiUrl?: string | undefined;
}

/**
 * The options a client with these settings is built with: for `createSlackWebClient`, and for the clients the
 * SDKs build themselves from options (Bolt's `clientOptions`, the Socket Mode client's).
 */
export function slackClientOptions(settings: SlackClientSettings): WebClientOptions {
  const policy = RETRY_POLICIES[settings.policy];
  return {
    timeout: settings.timeoutMs,
    retryConfig: policy.retryConfig,
    ...(policy.rejectRateLimitedCalls ? { rejectRateLimitedCalls: true } : {}),
    ...(settings.apiUrl ? { slackApiUrl: settings.apiUrl } : {}),
  };
}

export interface CreateSlackWebClientOptions extends SlackClientSettings {
  token: string;
  /** Where the SDK logs (slackSdkLogger over ours); without one, the SDK's console logger at `logLevel`. */
  logger?: Logger;
  logLevel?: LogLevel;
}

export function createSlackWebClient(options: CreateSlackWebClientOptions): WebClient {
  return new WebClient(options.token, {
    ...slackClientOptions(options),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.logLevel !== undefined ? { logLevel: options.logLevel } : {}),
  });
}
