/**
 * Builds ApiKey objects that cannot leak by accident: JSON.stringify (and so pino) and util.inspect (console.log,
 * test failure output) show the redacted form in place of `value`. Reading `key.value` still gives the key.
 */
import { inspect } from "node:util";
import type { ApiKey } from "./types.ts";

export function makeApiKey(fields: ApiKey): ApiKey {
  const key = { ...fields };
  const safe = (): Record<string, unknown> => ({ ...key, value: `[redacted ${key.redacted}]` });
  Object.defineProperty(key, "toJSON", { value: safe, enumerable: false });
  Object.defineProperty(key, inspect.custom, { value: () => safe(), enumerable: false });
  return Object.freeze(key);
}
