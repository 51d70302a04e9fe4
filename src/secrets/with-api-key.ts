/**
 * Runs a supplier call with the current key and recovers from rotation: a 401 forces one refresh and one retry
 * with the refreshed key if it differs; if that is rejected too and an AWSPREVIOUS version exists (the rotation
 * grace period), that is tried once. Then the UnauthorizedError is rethrown and `onUnauthorized` is told.
 * No key is sent twice in one call, and with `refused` a key refused by an earlier call is skipped until the
 * secret changes, so a grace period costs one 401 rather than two per order.
 * Retrying is safe: a 401 means the supplier did not process the request.
 */
import { type Logger, pino } from "pino";
import { UnauthorizedError } from "../supplier/errors.ts";
import { logSafe } from "./errors.ts";
import type { RefusedKeys } from "./refused-keys.ts";
import type { ApiKey, ApiKeyProvider, ApiKeyStage } from "./types.ts";

export interface TriedKey {
  stage: ApiKeyStage;
  versionId?: string;
  redacted: string;
}

export interface UnauthorizedReport {
  secretId: string;
  /** Every key the supplier rejected, in the order tried (redacted). */
  tried: TriedKey[];
  error: UnauthorizedError;
}

export interface WithApiKeyOptions {
  /** Told once per failed call after every key was rejected (wire it to the admin alert; see `oncePerKeySet`). */
  onUnauthorized?: (report: UnauthorizedReport) => void | Promise<void>;
  logger?: Logger;
  /**
   * Keys the supplier refused, shared by every call: a remembered key is not sent again until the secret
   * changes (src/secrets/refused-keys.ts). Without it, each call starts afresh.
   */
  refused?: RefusedKeys;
}

export async function withApiKey<T>(
  provider: ApiKeyProvider,
  secretId: string,
  fn: (key: string, meta: ApiKey) => Promise<T>,
  options: WithApiKeyOptions = {},
): Promise<T> {
  const logger = options.logger ?? pino({ level: "silent" });
  const refused = options.refused;
  const tried: TriedKey[] = [];
  /** Key values sent in this call: a key the supplier just refused is never sent twice. */
  const sent = new Set<string>();
  let lastError: UnauthorizedError | null = null;
  const isRefused = (key: ApiKey) => sent.has(key.value) || (refused?.has(secretId, key.value) ?? false);
  /** Sends with `key` unless it is known to be refused: the result, or null when it was skipped. */
  const attempt = async (key: ApiKey): Promise<{ ok: true; value: T } | { ok: false } | null> => {
    if (isRefused(key)) return null;
    sent.add(key.value);
    try {
      return { ok: true, value: await fn(key.value, key) };
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      tried.push(describe(key));
      refused?.remember(secretId, key.value);
      lastError = error;
      return { ok: false };
    }
  };

  let current = await provider.getKey(secretId);
  // The cached key was refused earlier: re-read the secret (at most once a minute) in case it was fixed.
  if (refused?.has(secretId, current.value) && refused.shouldRecheck(secretId)) {
    current = await provider.refresh(secretId);
  }
  let result = await attempt(current);
  if (result?.ok) return result.value;
  if (result) {
    logger.warn(
      { secretId, ...describe(current) },
      "the supplier rejected the API key (401); fetching the key again",
    );
    const refreshed = await provider.refresh(secretId);
    result = await attempt(refreshed);
    if (result?.ok) return result.value;
    current = refreshed;
  }

  let previous: ApiKey | null = null;
  try {
    previous = await provider.previous(secretId);
  } catch (error) {
    // The 401 is the news; a failure to look up the old key must not replace it.
    logger.warn({ secretId, err: logSafe(error) }, "could not look up the AWSPREVIOUS supplier API key");
  }
  if (previous && previous.value !== current.value) {
    result = await attempt(previous);
    if (result?.ok) {
      logger.warn(
        {
          secretId,
          current: describe(current),
          previous: describe(previous),
          previousExpiresAt: previous.expiresAt,
          ...(refused ? { refused: refused.fingerprints(secretId) } : {}),
        },
        "the supplier rejected the AWSCURRENT API key but accepted AWSPREVIOUS: the new key is not active at the " +
          "supplier yet or was stored wrongly. Fix it before the old key's grace period ends.",
      );
      return result.value;
    }
  }

  if (lastError === null) {
    // Every key we have was refused earlier and the secret has not changed: nothing was sent this time.
    logger.error(
      { secretId, current: describe(current), refused: refused?.fingerprints(secretId) ?? [] },
      "the supplier refused every API key we have earlier; not sending them again until the secret changes. " +
        "Store a valid key as the secret's new AWSCURRENT version; see docs/secrets.md.",
    );
    throw new UnauthorizedError(current.redacted);
  }
  const error: UnauthorizedError = lastError;
  const report: UnauthorizedReport = { secretId, tried, error };
  logger.error(
    { secretId, tried },
    "the supplier rejected every API key we have (401). Ask the supplier for a valid key and store it as the " +
      "secret's new AWSCURRENT version; see docs/secrets.md.",
  );
  if (options.onUnauthorized) {
    try {
      await options.onUnauthorized(report);
    } catch (error) {
      logger.error({ secretId, err: logSafe(error) }, "onUnauthorized failed");
    }
  }
  throw error;
}

/**
 * Wraps an alert so it fires once per secret and set of rejected key versions: a burst of failing orders raises
 * one alert, and a new (still rejected) key raises a new one.
 */
export function oncePerKeySet(
  alert: (report: UnauthorizedReport) => void | Promise<void>,
): (report: UnauthorizedReport) => Promise<void> {
  const seen = new Set<string>();
  return async (report) => {
    const id = `${report.secretId}|${report.tried.map((k) => k.versionId ?? k.redacted).join(",")}`;
    if (seen.has(id)) return;
    seen.add(id);
    await alert(report);
  };
}

function describe(key: ApiKey): TriedKey {
  return { stage: key.stage, ...(key.versionId ? { versionId: key.versionId } : {}), redacted: key.redacted };
}
