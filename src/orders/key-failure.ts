/**
 * When the supplier API key cannot be read (Secrets Manager refuses, the secret is missing or malformed, the key
 * has the wrong shape or environment), agents and admins are told different things. The agent's order message
 * says it plainly; the secret id, the AWS region and the environment variables to check are for the admins and
 * go to the admin alert only. The order's stored error holds the plain words too, since everything that shows
 * an order (its message, App Home, exports) reads it.
 */
import type { AdminAlert } from "./ports.ts";

/** What an agent reads under an order that failed because the key could not be read. */
export const KEY_UNREADABLE_MESSAGE = "the supplier key could not be read; the admins have been told";

const KEY_CODES: ReadonlySet<string> = new Set([
  "SECRET_NOT_FOUND",
  "SECRET_ACCESS_DENIED",
  "SECRET_MALFORMED",
  "SECRET_UNAVAILABLE",
  "SECRETS_CONFIGURATION",
  "MALFORMED_API_KEY",
  "KEY_ENVIRONMENT_MISMATCH",
]);

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
}

/** Whether the failure is about reading or using the key itself (not the supplier refusing it: that is a 401). */
export function isKeyReadFailure(error: unknown): boolean {
  const code = codeOf(error);
  return code !== null && KEY_CODES.has(code);
}

/** The order's stored error: the code for people who debug, the plain words for people who read. */
export function keyFailureRecord(error: unknown): Record<string, unknown> {
  const name = error instanceof Error ? error.name : "Error";
  return { name, code: codeOf(error) ?? "UNKNOWN", message: KEY_UNREADABLE_MESSAGE, keyUnreadable: true };
}

/** The admin alert: one per failure code (the notifier deduplicates by key), with every detail the error has. */
export function keyFailureAlert(error: unknown): AdminAlert {
  const code = codeOf(error) ?? "UNKNOWN";
  const details = error instanceof Error ? error.message : String(error);
  return {
    key: `key:${code}`,
    title: "The supplier API key could not be read",
    text: `${details} Orders fail until this is fixed; agents were told only that the key could not be read. Once it is fixed, retry or resubmit the orders that failed meanwhile.`,
  };
}
