/**
 * Picks the key source from configuration: a Secrets Manager secret id, or a key in the environment, never both.
 */

import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { Logger } from "pino";
import type { WebhookSigning } from "../supplier/webhook-signing.ts";
import type { BackoffOptions } from "./cache.ts";
import type { SecretsManagerClientOptions } from "./client.ts";
import { ENV_KEY_SOURCE, EnvKeyProvider } from "./env-provider.ts";
import { SecretsConfigurationError } from "./errors.ts";
import type { ApiKey, ApiKeyProvider } from "./types.ts";

export interface CreateApiKeyProviderOptions {
  /** SUPPLIER_API_KEY_SECRET_ID: the default secret (profiles may name others). */
  secretId?: string | undefined;
  /** SUPPLIER_API_KEY: the key itself, for local use. */
  envKey?: string | undefined;
  /** Production mode: an environment key is logged as a warning. */
  production?: boolean;
  logger?: Logger;
  now?: () => Date;
  ttlMs?: number;
  backoff?: BackoffOptions;
  /** A ready client (tests); otherwise one is built from `clientOptions`. */
  client?: SecretsManagerClient;
  clientOptions?: SecretsManagerClientOptions;
}

export interface ConfiguredApiKeyProvider {
  provider: ApiKeyProvider;
  source: "secrets-manager" | "env";
  /** The id to pass to the provider when a profile names no secret of its own. */
  secretId: string;
}

export function createApiKeyProvider(options: CreateApiKeyProviderOptions): ConfiguredApiKeyProvider {
  const secretId = options.secretId?.trim() || undefined;
  const envKey = options.envKey || undefined;
  if (secretId && envKey) {
    throw new SecretsConfigurationError(
      "Both SUPPLIER_API_KEY_SECRET_ID and SUPPLIER_API_KEY are set. Set only one: the secret id in production, " +
        "the key itself only for local use.",
      secretId,
    );
  }
  if (envKey) {
    const provider = new EnvKeyProvider({
      value: envKey,
      production: options.production ?? false,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return { provider, source: "env", secretId: ENV_KEY_SOURCE };
  }
  if (secretId) {
    return { provider: lazySecretsManagerProvider(options), source: "secrets-manager", secretId };
  }
  throw new SecretsConfigurationError(
    "No supplier API key is configured. Set SUPPLIER_API_KEY_SECRET_ID to the AWS Secrets Manager secret holding " +
      "the key (production), or SUPPLIER_API_KEY to the key itself (local use only).",
    null,
  );
}

/**
 * The Secrets Manager provider, built when a key is first asked for: the AWS SDK (≈ 1 MB of code, with its
 * own start-up work) is loaded then, off the start-up path, and never by an install that keeps its key in
 * the environment.
 */
function lazySecretsManagerProvider(options: CreateApiKeyProviderOptions): ApiKeyProvider {
  let loading: Promise<ApiKeyProvider> | null = null;
  const load = () => {
    loading ??= (async () => {
      const [{ SecretsManagerKeyProvider }, { createSecretsManagerClient }] = await Promise.all([
        import("./secrets-manager-provider.ts"),
        import("./client.ts"),
      ]);
      return new SecretsManagerKeyProvider({
        client: options.client ?? createSecretsManagerClient(options.clientOptions),
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.now ? { now: options.now } : {}),
        ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
        ...(options.backoff ? { backoff: options.backoff } : {}),
      });
    })();
    return loading;
  };
  return {
    getKey: async (secretId): Promise<ApiKey> => (await load()).getKey(secretId),
    refresh: async (secretId): Promise<ApiKey> => (await load()).refresh(secretId),
    previous: async (secretId): Promise<ApiKey | null> => (await load()).previous(secretId),
  };
}

/**
 * The webhook secrets: those in the environment, or a Secrets Manager secret's (WEBHOOK_SECRET_ID), the AWS SDK
 * loaded only then. The result answers `getSecrets({ refresh })` as the webhook receiver asks.
 */
export async function createWebhookSecrets(options: {
  secretId: string | undefined;
  secrets: readonly string[];
  ttlMs: number;
  logger: Logger;
  clientOptions: SecretsManagerClientOptions;
  /** The scheme the secrets are for (default Standard Webhooks). */
  signing?: WebhookSigning;
}): Promise<(request?: { refresh?: boolean }) => readonly string[] | Promise<readonly string[]>> {
  const { secretId } = options;
  if (!secretId) return () => options.secrets;
  const [{ createWebhookSecretSource }, { createSecretsManagerClient }] = await Promise.all([
    import("./webhook-secrets.ts"),
    import("./client.ts"),
  ]);
  return createWebhookSecretSource({
    client: createSecretsManagerClient(options.clientOptions),
    secretId,
    ttlMs: options.ttlMs,
    logger: options.logger,
    ...(options.signing && { signing: options.signing }),
  });
}
