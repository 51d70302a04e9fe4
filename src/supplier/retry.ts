/**
 * When to retry a create-order attempt, and how long to wait. Pure: the caller supplies the attempt number, the
 * attempt's error and the random source, so the policy is tested without clocks or sockets.
 *
 * Retried: the supplier's INTERNAL_SERVER_ERROR, any 5xx, 429, connection errors and timeouts. Never another 4xx
 * (a validation failure or a duplicate will not change by asking again). Backoff is capped exponential with full
 * jitter (delay = random × min(cap, base × 2^(attempt-1))), which spreads retries of many clients evenly. A
 * `Retry-After` from the supplier is honoured exactly when it is within `maxRetryAfterMs`; a longer one ends the
 * retries (with the wait reported) instead of blocking the caller or ignoring the supplier.
 */
import { RateLimitedError, SupplierServerError, SupplierUnavailableError } from "./errors.ts";

export interface RetryPolicy {
  /** Total attempts including the first. */
  maxAttempts: number;
  baseDelayMs: number;
  /** Cap on the exponential backoff. */
  maxDelayMs: number;
  /** Longest `Retry-After` we wait for in-process; beyond it we give up and report the wait. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 30_000,
});

export type RetryDecision =
  | { retry: true; delayMs: number }
  | {
      retry: false;
      reason: "not_retryable" | "attempts_exhausted" | "retry_after_too_long";
      /** Set for `retry_after_too_long`: what the supplier asked for. */
      retryAfterMs?: number;
    };

/** Errors worth another attempt. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof SupplierServerError || error instanceof RateLimitedError) return true;
  return (
    error instanceof SupplierUnavailableError && (error.reason === "network" || error.reason === "timeout")
  );
}

function retryAfterOf(error: unknown): number | null {
  if (error instanceof SupplierServerError || error instanceof RateLimitedError) return error.retryAfterMs;
  return null;
}

/**
 * @param attempt 1-based number of the attempt that just failed.
 * @param random a function returning [0, 1), e.g. `Math.random`.
 */
export function decideRetry(
  attempt: number,
  error: unknown,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): RetryDecision {
  if (!isRetryable(error)) return { retry: false, reason: "not_retryable" };
  if (attempt >= policy.maxAttempts) return { retry: false, reason: "attempts_exhausted" };
  const retryAfterMs = retryAfterOf(error);
  if (retryAfterMs !== null) {
    if (retryAfterMs > policy.maxRetryAfterMs)
      return { retry: false, reason: "retry_after_too_long", retryAfterMs };
    return { retry: true, delayMs: retryAfterMs };
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return { retry: true, delayMs: Math.floor(random() * ceiling) };
}

/**
 * Parses a `Retry-After` header (delay-seconds or an HTTP date) into milliseconds from `nowMs`.
 * Returns null when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
