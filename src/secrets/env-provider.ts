/**
 * The supplier API key from the environment (SUPPLIER_API_KEY), for local use. The same key serves every secret id.
 * Checked once at construction; in production mode it warns (once) that the key belongs in a secrets manager.
 */
import { type Logger, pino } from "pino";
import { makeApiKey } from "./api-key.ts";
import { parseSecretPayload } from "./secret-value.ts";
import type { ApiKey, ApiKeyProvider } from "./types.ts";

export const ENV_KEY_SOURCE = "SUPPLIER_API_KEY";

export interface EnvKeyProviderOptions {
  /** The key, or the same JSON form a secret may hold (`{"apiKey": ..., "expiresAt": ...}`). */
  value: string;
  production: boolean;
  logger?: Logger;
  /** Known expiry of this key, when the JSON form does not carry one. */
  expiresAt?: Date | null;
}

export class EnvKeyProvider implements ApiKeyProvider {
  readonly #key: ApiKey;

  constructor(options: EnvKeyProviderOptions) {
    const logger = options.logger ?? pino({ level: "silent" });
    const payload = parseSecretPayload(options.value, `${ENV_KEY_SOURCE} (environment variable)`);
    const expiresAt = payload.expiresAt ?? options.expiresAt ?? null;
    this.#key = makeApiKey({
      value: payload.value,
      stage: "env",
      expiresAt,
      expirySource: payload.expiresAt ? "secret" : expiresAt ? "configured" : "none",
      redacted: payload.parsed.redacted,
      environment: payload.parsed.environment,
    });
    if (options.production) {
      logger.warn(
        { redactedKey: this.#key.redacted },
        "The supplier API key comes from the SUPPLIER_API_KEY environment variable. In production, store it in " +
          "AWS Secrets Manager and set SUPPLIER_API_KEY_SECRET_ID instead: environment variables leak into process " +
          "listings, crash dumps and CI logs, and cannot be rotated without a restart (see docs/secrets.md).",
      );
    }
  }

  async getKey(_secretId: string): Promise<ApiKey> {
    return this.#key;
  }

  /** The environment cannot change under a running process: a rejected key stays rejected until restart. */
  async refresh(_secretId: string): Promise<ApiKey> {
    return this.#key;
  }

  async previous(_secretId: string): Promise<ApiKey | null> {
    return null;
  }
}
