/**
 * The API keys the sandbox accepts, each belonging to a customer (the spec: keys are issued per customer, and a
 * customer may hold several). The sandbox is the supplier's *test* environment: it only ever accepts
 * `<svc>_test_…` keys, and tells a caller presenting a live key exactly that.
 */
import { randomBytes } from "node:crypto";
import { parseApiKey } from "../supplier/keys.ts";

/** The service abbreviation in the keys the sandbox makes: `ods_test_<32 hex>` ("order desk supplier"). */
export const SANDBOX_KEY_SERVICE = "ods";
export const DEFAULT_CUSTOMER = "default";

export interface SandboxKey {
  key: string;
  customer: string;
}

/** The key is not one the sandbox can accept; `message` is safe to show (it never contains the key). */
export class SandboxKeyError extends Error {
  readonly code = "invalid_sandbox_key";
}

export function generateTestKey(bytes: (size: number) => Buffer = randomBytes): string {
  return `${SANDBOX_KEY_SERVICE}_test_${bytes(16).toString("hex")}`;
}

/**
 * `KEY` or `CUSTOMER:KEY` (a key never contains a colon). Throws `SandboxKeyError` for a malformed or live key:
 * configuring the sandbox with a production key is a mistake worth stopping at.
 */
export function parseSandboxKey(spec: string): SandboxKey {
  const colon = spec.lastIndexOf(":");
  const customer = colon >= 0 ? spec.slice(0, colon) : DEFAULT_CUSTOMER;
  const key = colon >= 0 ? spec.slice(colon + 1) : spec;
  if (customer.length === 0) throw new SandboxKeyError("The customer before ':' in an API key is empty.");
  let parsed: ReturnType<typeof parseApiKey>;
  try {
    parsed = parseApiKey(key);
  } catch (error) {
    throw new SandboxKeyError(`An API key given to the sandbox is malformed: ${(error as Error).message}`);
  }
  if (parsed.environment !== "test") {
    throw new SandboxKeyError(
      `The sandbox is a test environment and accepts only test keys (<svc>_test_<32 hex>); ${parsed.redacted} is a live key. Never give a production key to the sandbox.`,
    );
  }
  return { key, customer };
}

export type KeyCheck =
  | { ok: true; customer: string; redacted: string }
  | { ok: false; message: string; redacted: string | null };

export class KeyRing {
  /** Accepted key → its customer and redacted form (computed once: this is on every request's path). */
  private readonly byKey = new Map<string, { customer: string; redacted: string }>();

  constructor(keys: readonly SandboxKey[]) {
    for (const { key, customer } of keys)
      this.byKey.set(key, { customer, redacted: parseApiKey(key).redacted });
  }

  get keys(): SandboxKey[] {
    return [...this.byKey].map(([key, { customer }]) => ({ key, customer }));
  }

  /** Checks an `X-Api-Key` header. Messages name the key only in redacted form. */
  check(header: string | string[] | undefined): KeyCheck {
    const value = Array.isArray(header) ? header[0] : header;
    if (value === undefined || value.length === 0) {
      return {
        ok: false,
        redacted: null,
        message: "The X-Api-Key header is missing. Send your test API key in it.",
      };
    }
    const known = this.byKey.get(value);
    if (known) return { ok: true, customer: known.customer, redacted: known.redacted };
    let parsed: ReturnType<typeof parseApiKey>;
    try {
      parsed = parseApiKey(value);
    } catch {
      return {
        ok: false,
        redacted: null,
        message: "The X-Api-Key header is not an API key: expected <svc>_test_<32 lowercase hex>.",
      };
    }
    if (parsed.environment === "live") {
      return {
        ok: false,
        redacted: parsed.redacted,
        message: `The sandbox is a test environment: live keys are not accepted here (${parsed.redacted}). Use a test key (<svc>_test_…), and never send a production key to a test environment.`,
      };
    }
    return {
      ok: false,
      redacted: parsed.redacted,
      message: `The API key ${parsed.redacted} is not known to this sandbox. Use one of the keys it printed at start-up, or start it with --api-key.`,
    };
  }
}
