/**
 * Supplier API keys: `<svc>_live_<32 lowercase hex>` (production) and `<svc>_test_<32 lowercase hex>` (test).
 * The environment comes from the prefix, so a key can be checked against the target before it leaves the process.
 */
import { KeyEnvironmentMismatchError, MalformedApiKeyError } from "./errors.ts";

export type SupplierEnvironment = "live" | "test";

export interface ParsedApiKey {
  environment: SupplierEnvironment;
  /** The service abbreviation before the environment, e.g. "ops" in `ops_live_…`. */
  service: string;
  /** Prefix plus the last four characters, e.g. `ops_live_…3f9a`: safe for logs and messages. */
  redacted: string;
}

const KEY_PATTERN = /^([A-Za-z][A-Za-z0-9]*)_(live|test)_([0-9a-f]{32})$/;
const EXPECTED = "<svc>_live_<32 lowercase hex> or <svc>_test_<32 lowercase hex>";

/** Parses a key without ever putting its value in an error. */
export function parseApiKey(value: unknown): ParsedApiKey {
  if (typeof value !== "string" || value.length === 0) {
    throw new MalformedApiKeyError(`The supplier API key is missing or empty: expected ${EXPECTED}.`);
  }
  const match = KEY_PATTERN.exec(value);
  if (!match) {
    // Diagnose the common copy/paste mistakes without revealing any part of the value.
    const hint =
      value.trim() !== value
        ? " It has leading or trailing whitespace (a newline from the secret store?)."
        : /[A-F]/.test(value) && KEY_PATTERN.test(value.toLowerCase())
          ? " Its hex part has upper-case letters; the supplier issues lower-case keys."
          : /^["']/.test(value)
            ? " It starts with a quote character."
            : "";
    throw new MalformedApiKeyError(
      `The supplier API key (${value.length} characters) is malformed: expected ${EXPECTED}.${hint}`,
    );
  }
  const [, service, environment, secret] = match as unknown as [string, string, SupplierEnvironment, string];
  return { environment, service, redacted: `${service}_${environment}_…${secret.slice(-4)}` };
}

/**
 * Log-safe form of any value that might be a key: the prefix plus the last four characters for a well-formed key,
 * and nothing recognisable otherwise (a malformed value may be a different secret altogether).
 */
export function redactApiKey(value: unknown): string {
  if (typeof value !== "string") return "[no key]";
  const match = KEY_PATTERN.exec(value);
  if (match) return `${match[1]}_${match[2]}_…${value.slice(-4)}`;
  return "[redacted]";
}

/** Throws unless the key's environment is the target's. Runs before any request is made. */
export function assertKeyMatchesEnvironment(value: string, target: SupplierEnvironment): ParsedApiKey {
  const parsed = parseApiKey(value);
  if (parsed.environment !== target) {
    throw new KeyEnvironmentMismatchError(parsed.redacted, parsed.environment, target);
  }
  return parsed;
}

/** Replaces every occurrence of the key in a text (e.g. a proxy page echoing request headers). */
export function scrubApiKey(text: string, apiKey: string): string {
  if (apiKey.length === 0) return text;
  return text.split(apiKey).join(redactApiKey(apiKey));
}
