/**
 * The supplier API key from AWS Secrets Manager: cached per secret id with a TTL, one fetch in flight per secret,
 * last good value served (and the failure logged) while Secrets Manager is failing, rotation noticed on the next
 * fetch. The key is checked when loaded and never logged: logs carry the secret id, version id and redacted form.
 */
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { addDays } from "date-fns/addDays";
import { type Logger, pino } from "pino";
import { makeApiKey } from "./api-key.ts";
import { type BackoffOptions, RefreshingCache } from "./cache.ts";
import { logSafe, SecretUnavailableError } from "./errors.ts";
import { type SecretsOperation, toSecretsError } from "./sdk-errors.ts";
import { parseSecretPayload } from "./secret-value.ts";
import type { ApiKey, ApiKeyProvider, ApiKeyStage } from "./types.ts";

/** Supplier spec (Authentication, Limits): keys live 360 days; a rotated key keeps working 30 days. */
export const DEFAULT_KEY_LIFETIME_DAYS = 360;
export const DEFAULT_ROTATION_GRACE_DAYS = 30;

export interface SecretsManagerKeyProviderOptions {
  client: SecretsManagerClient;
  /** How long a fetched key is used before asking again. Default 1 hour. */
  ttlMs?: number;
  now?: () => Date;
  logger?: Logger;
  backoff?: BackoffOptions;
  /** A `refresh` this soon after a successful fetch reuses it. Default 1 s. */
  minRefreshIntervalMs?: number;
  /** Used for expiry when the secret has no `expiresAt`: version CreatedDate + this. Default 360. */
  lifetimeDays?: number;
  /** Used for the AWSPREVIOUS key's expiry: AWSCURRENT's CreatedDate + this. Default 30. */
  rotationGraceDays?: number;
}

export class SecretsManagerKeyProvider implements ApiKeyProvider {
  readonly #client: SecretsManagerClient;
  readonly #logger: Logger;
  readonly #lifetimeDays: number;
  readonly #graceDays: number;
  readonly #current: RefreshingCache<ApiKey>;
  readonly #previous: RefreshingCache<ApiKey | null>;
  #region: Promise<string | null> | null = null;

  constructor(options: SecretsManagerKeyProviderOptions) {
    this.#client = options.client;
    this.#logger = options.logger ?? pino({ level: "silent" });
    this.#lifetimeDays = options.lifetimeDays ?? DEFAULT_KEY_LIFETIME_DAYS;
    this.#graceDays = options.rotationGraceDays ?? DEFAULT_ROTATION_GRACE_DAYS;
    const cacheOptions = {
      ttlMs: options.ttlMs ?? 3_600_000,
      now: options.now ?? (() => new Date()),
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(options.minRefreshIntervalMs !== undefined
        ? { minRefreshIntervalMs: options.minRefreshIntervalMs }
        : {}),
      isTransient: (error: unknown) => error instanceof SecretUnavailableError,
      onFailure: (secretId: string, error: unknown, info: { retryInMs: number; failures: number }) => {
        this.#logger.error(
          { secretId, err: logSafe(error), failures: info.failures, retryInMs: info.retryInMs },
          "could not load the supplier API key from Secrets Manager",
        );
      },
    };
    this.#current = new RefreshingCache<ApiKey>({
      ...cacheOptions,
      onStale: (secretId, error, info) => {
        const stale = this.#current.peek(secretId);
        this.#logger.warn(
          {
            secretId,
            versionId: stale?.versionId,
            redactedKey: stale?.redacted,
            err: logSafe(error),
            failures: info.failures,
            retryInMs: info.retryInMs,
            ageMs: info.ageMs,
          },
          "Secrets Manager failed; using the last good supplier API key until it recovers",
        );
      },
    });
    this.#previous = new RefreshingCache<ApiKey | null>({
      ...cacheOptions,
      onStale: (secretId, error, info) => {
        this.#logger.warn(
          { secretId, err: logSafe(error), retryInMs: info.retryInMs },
          "Secrets Manager failed; using the last known AWSPREVIOUS supplier API key",
        );
      },
    });
  }

  getKey(secretId: string): Promise<ApiKey> {
    return this.#current.get(secretId, () => this.#fetchCurrent(secretId));
  }

  refresh(secretId: string): Promise<ApiKey> {
    return this.#current.refresh(secretId, () => this.#fetchCurrent(secretId));
  }

  previous(secretId: string): Promise<ApiKey | null> {
    return this.#previous.get(secretId, () => this.#fetchPrevious(secretId));
  }

  async #fetchCurrent(secretId: string): Promise<ApiKey> {
    const output = await this.#send(secretId, "GetSecretValue", () =>
      this.#client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: "AWSCURRENT" })),
    );
    const key = this.#toApiKey(secretId, output, "AWSCURRENT", null);
    const before = this.#current.peek(secretId);
    if (before?.versionId !== key.versionId) {
      // A new AWSCURRENT means a new AWSPREVIOUS too.
      if (before) this.#previous.invalidate(secretId);
      this.#logger.info(
        {
          secretId,
          versionId: key.versionId,
          previousVersionId: before?.versionId,
          redactedKey: key.redacted,
          expiresAt: key.expiresAt?.toISOString(),
        },
        before ? "supplier API key rotated: now using the new AWSCURRENT version" : "supplier API key loaded",
      );
    }
    return key;
  }

  async #fetchPrevious(secretId: string): Promise<ApiKey | null> {
    const description = await this.#send(secretId, "DescribeSecret", () =>
      this.#client.send(new DescribeSecretCommand({ SecretId: secretId })),
    );
    const previousVersionId = Object.entries(description.VersionIdsToStages ?? {}).find(([, stages]) =>
      stages.includes("AWSPREVIOUS"),
    )?.[0];
    if (previousVersionId === undefined) return null;
    const output = await this.#send(secretId, "GetSecretValue", () =>
      this.#client.send(new GetSecretValueCommand({ SecretId: secretId, VersionId: previousVersionId })),
    );
    // The old key stops working a grace period after the new one arrived (spec: Authentication 5).
    const currentCreated = this.#current.peek(secretId)?.createdAt ?? null;
    const graceEnd = currentCreated ? addDays(currentCreated, this.#graceDays) : null;
    return this.#toApiKey(secretId, output, "AWSPREVIOUS", graceEnd);
  }

  #toApiKey(
    secretId: string,
    output: GetSecretValueCommandOutput,
    stage: ApiKeyStage,
    defaultExpiry: Date | null,
  ): ApiKey {
    const payload = parseSecretPayload(output.SecretString, secretId);
    const createdAt = output.CreatedDate ?? null;
    const derived = defaultExpiry ?? (createdAt ? addDays(createdAt, this.#lifetimeDays) : null);
    return makeApiKey({
      value: payload.value,
      ...(output.VersionId ? { versionId: output.VersionId } : {}),
      stage,
      expiresAt: payload.expiresAt ?? derived,
      expirySource: payload.expiresAt ? "secret" : derived ? "created-date" : "none",
      redacted: payload.parsed.redacted,
      environment: payload.parsed.environment,
      createdAt,
    });
  }

  async #send<T>(secretId: string, operation: SecretsOperation, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw toSecretsError(error, secretId, operation, await this.#resolveRegion());
    }
  }

  #resolveRegion(): Promise<string | null> {
    this.#region ??= Promise.resolve()
      .then(() => this.#client.config.region())
      .then(
        (region) => region || null,
        () => null,
      );
    return this.#region;
  }
}
