/**
 * Runs a supplier call with the current key and recovers from rotation: a 401 forces one refresh and one retry;
 * if the refreshed AWSCURRENT key is rejected too and an AWSPREVIOUS version exists (the rotation grace period),
 * that is tried once. Then the UnauthorizedError is rethrown and `onUnauthorized` is told.
 * Retrying is safe: a 401 means the supplier did not process the request.
 */
import { type Logger, pino } from "pino";
import { UnauthorizedError } from "../supplier/errors.ts";
import { logSafe } from "./errors.ts";
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
}

export async function withApiKey<T>(
  provider: ApiKeyProvider,
  secretId: string,
  fn: (key: string, meta: ApiKey) => Promise<T>,
  options: WithApiKeyOptions = {},
): Promise<T> {
  const logger = options.logger ?? pino({ level: "silent" });
  const tried: TriedKey[] = [];
  const attempt = async (
    key: ApiKey,
  ): Promise<{ ok: true; value: T } | { ok: false; error: UnauthorizedError }> => {
    try {
      return { ok: true, value: await fn(key.value, key) };
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      tried.push(describe(key));
      return { ok: false, error };
    }
  };

  const first = await provider.getKey(secretId);
  let result = await attempt(first);
  if (result.ok) return result.value;

  logger.warn(
    { secretId, ...describe(first) },
    "the supplier rejected the API key (401); fetching the key again",
  );
  const refreshed = await provider.refresh(secretId);
  result = await attempt(refreshed);
  if (result.ok) return result.value;

  let previous: ApiKey | null = null;
  try {
    previous = await provider.previous(secretId);
  } catch (error) {
    // The 401 is the news; a failure to look up the old key must not replace it.
    logger.warn({ secretId, err: logSafe(error) }, "could not look up the AWSPREVIOUS supplier API key");
  }
  if (previous && previous.value !== first.value && previous.value !== refreshed.value) {
    result = await attempt(previous);
    if (result.ok) {
      logger.warn(
        {
          secretId,
          current: describe(refreshed),
          previous: describe(previous),
          previousExpiresAt: previous.expiresAt,
        },
        "the supplier rejected the AWSCURRENT API key but accepted AWSPREVIOUS: the new key is not active at the " +
          "supplier yet or was stored wrongly. Fix it before the old key's grace period ends.",
      );
      return result.value;
    }
  }

  const report: UnauthorizedReport = { secretId, tried, error: result.error };
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
  throw result.error;
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
