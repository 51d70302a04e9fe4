/**
 * A placement's thrown error as an `OrderFailure` (orders/model/failure.ts): the one place that knows which
 * error is which way of failing, so the placement job records, and every reader sees, a typed value.
 */
import { isSecretsError } from "../secrets/errors.ts";
import {
  DuplicateOrderError,
  KeyEnvironmentMismatchError,
  LocalValidationError,
  MalformedApiKeyError,
  type SupplierValidationError,
} from "../supplier/errors.ts";
import { isKeyCode, KEY_UNREADABLE_MESSAGE } from "./key-failure.ts";
import type { FinalFailure, RejectedFailure, RetryingFailure } from "./model/failure.ts";

/** The error's `code`, or UNKNOWN for an error that has none. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "UNKNOWN";
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The supplier (or our copy of its rules) refused the request. */
export function rejectionOf(
  error: SupplierValidationError | LocalValidationError | DuplicateOrderError,
): RejectedFailure {
  if (error instanceof DuplicateOrderError) {
    return { kind: "rejected", reason: "duplicate_number", code: "DUPLICATE_ORDER", message: error.message };
  }
  return {
    kind: "rejected",
    reason: "rejected",
    code: error instanceof LocalValidationError ? "VALIDATION_FAILED" : error.code,
    message: error.message,
    details: error.details,
  };
}

/** An attempt that failed in a way that may pass: the queue retries. */
export function retryingOf(error: unknown, maybePlaced: boolean, attempt: number): RetryingFailure {
  return {
    kind: "retrying",
    reason: "retrying",
    code: errorCode(error),
    message: errorMessage(error),
    maybePlaced,
    attempt,
  };
}

/** The transient error of the queue's last attempt: given up. */
export function retriesExhaustedOf(error: unknown, maybePlaced: boolean): FinalFailure {
  const code = errorCode(error);
  return {
    kind: "failed",
    reason: "retries_exhausted",
    code,
    // Secrets Manager unreachable until the end: its message names the secret and region, for the admin alert only.
    message: isKeyCode(code) ? KEY_UNREADABLE_MESSAGE : errorMessage(error),
    maybePlaced,
    retriesExhausted: true,
  };
}

/** The supplier answered 401 to every key we have. */
export function keyRefused(maybePlaced: boolean): FinalFailure {
  return {
    kind: "failed",
    reason: "key_refused",
    code: "UNAUTHORIZED",
    message:
      "the supplier rejected our API key, so the order was not placed. An admin has been alerted; resubmit once the key is fixed",
    ...(maybePlaced ? { maybePlaced: true as const } : {}),
  };
}

/** True for an API key that cannot be used at all (wrong environment, malformed, or unreadable for good). */
export function isKeyProblem(
  error: unknown,
): error is KeyEnvironmentMismatchError | MalformedApiKeyError | (Error & { code: string }) {
  return (
    error instanceof KeyEnvironmentMismatchError ||
    error instanceof MalformedApiKeyError ||
    isSecretsError(error)
  );
}

/** Anything that can never succeed by retrying: a key that cannot be used, or an unexpected error. */
export function permanentFailureOf(error: unknown): FinalFailure {
  if (isKeyProblem(error)) {
    // The message that names the secret, region and variables goes to the admin alert; the order keeps plain words.
    return { kind: "failed", reason: "key_unavailable", code: error.code, message: KEY_UNREADABLE_MESSAGE };
  }
  const code = (error as { code?: unknown } | null)?.code;
  return {
    kind: "failed",
    reason: "unexpected",
    ...(typeof code === "string" && { code }),
    message: errorMessage(error),
  };
}
