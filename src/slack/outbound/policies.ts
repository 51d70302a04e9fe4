/**
 * How a call to Slack's Web API is retried, by name, so that every client says which one it follows instead of
 * spelling out its own `retryConfig`. One rule for 429s: Slack did not act on a rate-limited call, so repeating
 * it after `Retry-After` is always safe; who waits depends on the policy.
 *
 * - `interactive`: someone is waiting (a listener has Slack's 3 s, start-up checks the token). A failed call is
 *   retried twice, 200 ms then up to 1 s apart; a 429 is waited out inside the SDK and counts as a retry. The
 *   SDK's own default retries for ~30 minutes, which no listener can afford.
 * - `background`: a job, a probe, a connection loop. Never re-sent by the SDK: a repeated `chat.postMessage`
 *   whose first answer was lost would post twice, and a blocked worker helps no one. A 429 is rejected at once
 *   as a `SlackCallError` with `retryAfterMs`; the caller re-schedules its job after that long (or, for a
 *   message that must go out now, waits its channel's pace: slack/notifier.ts).
 */
import type { RetryOptions } from "@slack/web-api";

export interface RetryPolicy {
  readonly retryConfig: RetryOptions;
  /** true: a 429 comes back as an error at once; false: the SDK sleeps `Retry-After` and tries again. */
  readonly rejectRateLimitedCalls: boolean;
}

export const RETRY_POLICIES = {
  interactive: {
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1000 },
    rejectRateLimitedCalls: false,
  },
  background: { retryConfig: { retries: 0 }, rejectRateLimitedCalls: true },
} as const satisfies Record<string, RetryPolicy>;

export type RetryPolicyName = keyof typeof RETRY_POLICIES;

/** Slack's `Retry-After` (seconds) as the wait we keep: at least a second, so a `0` cannot make a busy loop. */
export function retryAfterMsOf(retryAfterSeconds: number): number {
  return Math.max(1, retryAfterSeconds) * 1000;
}
