/**
 * Key expiry: warnings 30, 14, 7 and 1 days ahead, each once per key version, and an error once expired.
 * Dates are shown in the process's time zone (TZ), formatted with date-fns: "expires on Tue 15 Dec 2026, in 23 days".
 * What was already said is kept in memory, so a restart repeats the latest warning once.
 */
import { format } from "date-fns/format";
import { formatDistanceStrict } from "date-fns/formatDistanceStrict";
import { type Logger, pino } from "pino";
import { logSafe } from "./errors.ts";
import type { ApiKey, ApiKeyProvider, ExpirySource } from "./types.ts";

export const DEFAULT_WARNING_DAYS = [30, 14, 7, 1] as const;
const DAY_MS = 86_400_000;

export interface ExpiryWarning {
  secretId: string;
  versionId: string | null;
  redactedKey: string;
  expiresAt: Date;
  /** Days until expiry (fractional; negative once expired). */
  daysLeft: number;
  /** The threshold crossed (30, 14, 7, 1), or null once expired. */
  thresholdDays: number | null;
  level: "warn" | "error";
  message: string;
}

export type ExpiryStatus = "ok" | "expiring" | "expired" | "unknown";

export interface KeyExpiry {
  stage: ApiKey["stage"];
  versionId: string | null;
  redactedKey: string;
  expiresAt: Date | null;
  expirySource: ExpirySource;
  daysLeft: number | null;
  status: ExpiryStatus;
  message: string;
}

export interface ExpiryDescription {
  secretId: string;
  current: KeyExpiry;
  /** The AWSPREVIOUS key (rotation grace period), if there is one. */
  previous: KeyExpiry | null;
}

export interface ExpiryWatchOptions {
  provider: ApiKeyProvider;
  secretIds: readonly string[];
  warningDays?: readonly number[];
  now?: () => Date;
  logger?: Logger;
  /** Called for each new warning (the lead wires it to the Slack admin channel). Failures are logged. */
  onWarning?: (warning: ExpiryWarning) => void | Promise<void>;
}

export class ExpiryWatch {
  readonly #provider: ApiKeyProvider;
  readonly #secretIds: readonly string[];
  readonly #warningDays: number[];
  readonly #now: () => Date;
  readonly #logger: Logger;
  readonly #onWarning: ExpiryWatchOptions["onWarning"];
  get #expiringWithinDays(): number {
    return this.#warningDays.at(-1) ?? DEFAULT_WARNING_DAYS[0];
  }

  /** `${secretId}|${versionId}` → thresholds already announced (0 = expired). */
  readonly #said = new Map<string, Set<number>>();

  constructor(options: ExpiryWatchOptions) {
    this.#provider = options.provider;
    this.#secretIds = [...new Set(options.secretIds)];
    this.#warningDays = [...(options.warningDays ?? DEFAULT_WARNING_DAYS)].sort((a, b) => a - b);
    this.#now = options.now ?? (() => new Date());
    this.#logger = options.logger ?? pino({ level: "silent" });
    this.#onWarning = options.onWarning;
  }

  /** Checks every watched secret's current key; returns (and logs, and passes to onWarning) the new warnings. */
  async check(now: Date = this.#now()): Promise<ExpiryWarning[]> {
    const warnings: ExpiryWarning[] = [];
    for (const secretId of this.#secretIds) {
      let key: ApiKey;
      try {
        key = await this.#provider.getKey(secretId);
      } catch (error) {
        this.#logger.error(
          { secretId, err: logSafe(error) },
          "could not check the supplier API key's expiry",
        );
        continue;
      }
      const warning = this.#newWarning(secretId, key, now);
      if (!warning) continue;
      warnings.push(warning);
      // `level` would clobber pino's own level field.
      const { message, level, ...fields } = warning;
      this.#logger[level]({ ...fields, expiresAt: warning.expiresAt.toISOString() }, message);
      if (this.#onWarning) {
        try {
          await this.#onWarning(warning);
        } catch (error) {
          this.#logger.error({ secretId, err: logSafe(error) }, "could not deliver the key expiry warning");
        }
      }
    }
    return warnings;
  }

  /** Runs `check` now and then every `intervalMs` (default 6 h); returns a stop function. The timer is unref'd. */
  start(intervalMs = 6 * 3_600_000): () => void {
    const run = (): void => {
      this.check().catch((error: unknown) =>
        this.#logger.error({ err: logSafe(error) }, "expiry check failed"),
      );
    };
    run();
    const timer = setInterval(run, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** For `order-desk doctor`: the current key's expiry and the AWSPREVIOUS key's, if any. Throws SecretsError. */
  async describeExpiry(secretId: string, now: Date = this.#now()): Promise<ExpiryDescription> {
    const current = await this.#provider.getKey(secretId);
    let previous: ApiKey | null = null;
    try {
      previous = await this.#provider.previous(secretId);
    } catch (error) {
      this.#logger.warn(
        { secretId, err: logSafe(error) },
        "could not look up the AWSPREVIOUS supplier API key",
      );
    }
    return {
      secretId,
      current: describeKeyExpiry(current, now, { secretId, expiringWithinDays: this.#expiringWithinDays }),
      previous: previous
        ? describeKeyExpiry(previous, now, { secretId, expiringWithinDays: this.#expiringWithinDays })
        : null,
    };
  }

  #newWarning(secretId: string, key: ApiKey, now: Date): ExpiryWarning | null {
    if (!key.expiresAt) return null;
    const daysLeft = (key.expiresAt.getTime() - now.getTime()) / DAY_MS;
    const versionKey = `${secretId}|${key.versionId ?? key.redacted}`;
    let said = this.#said.get(versionKey);
    if (!said) {
      said = new Set();
      this.#said.set(versionKey, said);
    }
    // Only the nearest crossed threshold is announced; the ones further out are marked said with it, so a key
    // first seen 5 days before expiry gets one "7 days" warning rather than three at once.
    const threshold = daysLeft <= 0 ? 0 : this.#warningDays.find((days) => daysLeft <= days);
    if (threshold === undefined || said.has(threshold)) return null;
    for (const days of this.#warningDays) if (days >= threshold) said.add(days);
    said.add(threshold);
    const base = {
      secretId,
      versionId: key.versionId ?? null,
      redactedKey: key.redacted,
      expiresAt: key.expiresAt,
      daysLeft,
    };
    if (threshold === 0) {
      return {
        ...base,
        thresholdDays: null,
        level: "error",
        message: `${describeKeyExpiry(key, now, { secretId }).message} Orders will fail with 401 until a new key is stored as the secret's AWSCURRENT version.`,
      };
    }
    return {
      ...base,
      thresholdDays: threshold,
      level: "warn",
      message: `${describeKeyExpiry(key, now, { secretId }).message} Ask the supplier for a new key and store it as the secret's new AWSCURRENT version (docs/secrets.md).`,
    };
  }
}

/** "Supplier API key ops_live_…3f9a (secret x) expires on Tue 15 Dec 2026, in 23 days." Never the key itself. */
export function describeKeyExpiry(
  key: ApiKey,
  now: Date,
  options: { secretId?: string; expiringWithinDays?: number } = {},
): KeyExpiry {
  const base = {
    stage: key.stage,
    versionId: key.versionId ?? null,
    redactedKey: key.redacted,
    expiresAt: key.expiresAt,
    expirySource: key.expirySource ?? (key.expiresAt ? "secret" : "none"),
  } as const;
  const where = [
    options.secretId ? `secret ${options.secretId}` : null,
    key.stage === "AWSPREVIOUS" ? "AWSPREVIOUS" : null,
  ]
    .filter(Boolean)
    .join(", ");
  const label = `Supplier API key ${key.redacted}${where ? ` (${where})` : ""}`;
  if (!key.expiresAt) {
    return {
      ...base,
      daysLeft: null,
      status: "unknown",
      message: `${label}: expiry unknown. Add "expiresAt" to the secret's JSON to be warned before it expires.`,
    };
  }
  const daysLeft = (key.expiresAt.getTime() - now.getTime()) / DAY_MS;
  const date = format(key.expiresAt, "EEE d MMM yyyy");
  const distance = formatDistanceStrict(key.expiresAt, now, {
    addSuffix: true,
    roundingMethod: "floor",
    ...(Math.abs(daysLeft) >= 1 ? { unit: "day" as const } : {}),
  });
  const estimated =
    base.expirySource === "created-date" ? " (estimated from the version's creation date)" : "";
  if (daysLeft <= 0) {
    return {
      ...base,
      daysLeft,
      status: "expired",
      message: `${label} expired on ${date}, ${distance}${estimated}.`,
    };
  }
  return {
    ...base,
    daysLeft,
    status: daysLeft <= (options.expiringWithinDays ?? DEFAULT_WARNING_DAYS[0]) ? "expiring" : "ok",
    message: `${label} expires on ${date}, ${distance}${estimated}.`,
  };
}
