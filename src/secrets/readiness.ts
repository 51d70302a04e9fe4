/**
 * The readiness check for the supplier API key: while a key cannot be read every order fails, so `/readyz` says
 * not ready. It reads through the provider's cache (no Secrets Manager call per probe while the key is fresh;
 * after a failure the cache's backoff answers with the same error until the next try is due), and a key served
 * stale during an outage counts as readable. `/readyz` shows only the error's code (`SECRET_NOT_FOUND`,
 * `SECRET_ACCESS_DENIED`, …); the message, which names the secret and what to fix, goes to the log.
 */
import type { ApiKeyProvider } from "./types.ts";

export function supplierKeyCheck(
  provider: ApiKeyProvider,
  secretIds: readonly string[],
): (signal: AbortSignal) => Promise<void> {
  const ids = [...new Set(secretIds)];
  return async () => {
    await Promise.all(ids.map((id) => provider.getKey(id)));
  };
}
