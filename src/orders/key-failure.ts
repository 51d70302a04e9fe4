/**
 * When the supplier API key cannot be read (Secrets Manager refuses, the secret is missing or malformed, the key
 * has the wrong shape or environment), agents and admins are told different things. The agent's order message
 * says it plainly; the secret id, the AWS region and the environment variables to check are for the admins and
 * go to the admin alert only. The order's stored failure holds the plain words too, since everything that shows
 * an order (its message, App Home, the workflow step's error, exports) reads it.
 */
import type { OrderFailure } from "./model/failure.ts";
import type { AdminAlert } from "./ports.ts";

/** What an agent reads under an order that failed because the key could not be read. */
export const KEY_UNREADABLE_MESSAGE = "the supplier key could not be read; the admins have been told";

/** Codes of a key that cannot be read or used (secrets/errors.ts, supplier/errors.ts). */
const KEY_CODES: ReadonlySet<string> = new Set([
  "SECRET_NOT_FOUND",
  "SECRET_ACCESS_DENIED",
  "SECRET_MALFORMED",
  "SECRET_UNAVAILABLE",
  "SECRETS_CONFIGURATION",
  "MALFORMED_API_KEY",
  "KEY_ENVIRONMENT_MISMATCH",
]);

export function isKeyCode(code: string | undefined): boolean {
  return code !== undefined && KEY_CODES.has(code);
}

/** A final failure about the key itself: unusable, or unreadable until the queue gave up (not a 401: that is a refusal). */
export function isKeyFailure(failure: OrderFailure | null | undefined): boolean {
  if (!failure) return false;
  return (
    failure.reason === "key_unavailable" ||
    (failure.reason === "retries_exhausted" && isKeyCode(failure.code))
  );
}

/** The admin alert: one per failure code (the notifier deduplicates by key), with every detail the error has. */
export function keyFailureAlert(error: unknown): AdminAlert {
  const code = (error as { code?: unknown } | null)?.code;
  const details = error instanceof Error ? error.message : String(error);
  return {
    key: `key:${typeof code === "string" ? code : "UNKNOWN"}`,
    title: "The supplier API key could not be read",
    text: `${details} Orders fail until this is fixed; agents were told only that the key could not be read. Once it is fixed, retry or resubmit the orders that failed meanwhile.`,
  };
}
