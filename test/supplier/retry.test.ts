import { describe, expect, it } from "vitest";
import {
  DuplicateOrderError,
  InvalidPayloadError,
  ProtocolError,
  RateLimitedError,
  SupplierServerError,
  SupplierUnavailableError,
  SupplierValidationError,
  UnauthorizedError,
} from "../../src/supplier/errors.ts";
import {
  DEFAULT_RETRY_POLICY,
  decideRetry,
  parseRetryAfter,
  type RetryPolicy,
} from "../../src/supplier/retry.ts";

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 3_000, maxRetryAfterMs: 20_000 };
const server = new SupplierServerError(502, "bad gateway");
const timeout = new SupplierUnavailableError("slow", { reason: "timeout", attempts: 1 });
const reset = new SupplierUnavailableError("reset", { reason: "network", attempts: 1 });

describe("decideRetry", () => {
  it("uses the documented defaults: 3 attempts, 500 ms base, 10 s cap", () => {
    expect(DEFAULT_RETRY_POLICY).toMatchObject({ maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 10_000 });
  });

  it("retries server errors, 429, timeouts and connection errors", () => {
    for (const error of [server, new RateLimitedError(null), timeout, reset]) {
      expect(decideRetry(1, error, policy, () => 0.5).retry).toBe(true);
    }
  });

  it("never retries another 4xx outcome or a protocol error", () => {
    for (const error of [
      new SupplierValidationError("x", {}),
      new DuplicateOrderError("PO-1"),
      new InvalidPayloadError("x"),
      new UnauthorizedError("ods_test_…cdef"),
      new ProtocolError("x"),
      new Error("anything else"),
    ]) {
      expect(decideRetry(1, error, policy, () => 0.5)).toEqual({ retry: false, reason: "not_retryable" });
    }
  });

  it("uses capped exponential backoff with full jitter", () => {
    const ceiling = (attempt: number) => decideRetry(attempt, server, policy, () => 0.999_999);
    expect(ceiling(1)).toEqual({ retry: true, delayMs: 499 });
    expect(ceiling(2)).toEqual({ retry: true, delayMs: 999 });
    expect(ceiling(3)).toEqual({ retry: true, delayMs: 1_999 });
    expect(ceiling(4)).toEqual({ retry: true, delayMs: 2_999 }); // capped at 3 s
    expect(decideRetry(2, server, policy, () => 0)).toEqual({ retry: true, delayMs: 0 });
    expect(decideRetry(2, server, policy, () => 0.25)).toEqual({ retry: true, delayMs: 250 });
  });

  it("stops after the last attempt", () => {
    expect(decideRetry(5, server, policy, () => 0.5)).toEqual({ retry: false, reason: "attempts_exhausted" });
  });

  it("honours Retry-After exactly when within the limit, and gives up (reporting it) beyond", () => {
    expect(decideRetry(1, new RateLimitedError(7_000), policy, () => 0)).toEqual({
      retry: true,
      delayMs: 7_000,
    });
    expect(
      decideRetry(1, new SupplierServerError(503, "busy", { retryAfterMs: 2_000 }), policy, () => 0),
    ).toEqual({
      retry: true,
      delayMs: 2_000,
    });
    expect(decideRetry(1, new RateLimitedError(60_000), policy, () => 0)).toEqual({
      retry: false,
      reason: "retry_after_too_long",
      retryAfterMs: 60_000,
    });
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-15T10:00:00Z");
  it("reads delay-seconds and HTTP dates", () => {
    expect(parseRetryAfter("3", now)).toBe(3_000);
    expect(parseRetryAfter("Wed, 15 Jan 2025 10:00:05 GMT", now)).toBe(5_000);
    expect(parseRetryAfter("Wed, 15 Jan 2025 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
