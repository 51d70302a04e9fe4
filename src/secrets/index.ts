export type { BackoffOptions } from "./cache.ts";
export { createSecretsManagerClient, type SecretsManagerClientOptions } from "./client.ts";
export { ENV_KEY_SOURCE, EnvKeyProvider, type EnvKeyProviderOptions } from "./env-provider.ts";
export {
  isSecretsError,
  SecretAccessDeniedError,
  SecretMalformedError,
  SecretNotFoundError,
  SecretsConfigurationError,
  SecretsError,
  type SecretsErrorCode,
  SecretUnavailableError,
} from "./errors.ts";
export {
  DEFAULT_WARNING_DAYS,
  describeKeyExpiry,
  type ExpiryDescription,
  type ExpiryStatus,
  type ExpiryWarning,
  ExpiryWatch,
  type ExpiryWatchOptions,
  type KeyExpiry,
} from "./expiry.ts";
export {
  type ConfiguredApiKeyProvider,
  type CreateApiKeyProviderOptions,
  createApiKeyProvider,
} from "./factory.ts";
export { keyFingerprint, RefusedKeys, type RefusedKeysOptions } from "./refused-keys.ts";
export {
  DEFAULT_KEY_LIFETIME_DAYS,
  DEFAULT_ROTATION_GRACE_DAYS,
  SecretsManagerKeyProvider,
  type SecretsManagerKeyProviderOptions,
} from "./secrets-manager-provider.ts";
export type { ApiKey, ApiKeyProvider, ApiKeyStage, ExpirySource } from "./types.ts";
export {
  oncePerKeySet,
  type TriedKey,
  type UnauthorizedReport,
  type WithApiKeyOptions,
  withApiKey,
} from "./with-api-key.ts";
