/**
 * The Secrets Manager SDK client with explicit timeouts and attempts. Region and credentials come from the
 * standard AWS chain unless given. The endpoint comes, in order, from `endpoint`, AWS_ENDPOINT_URL_SECRETS_MANAGER,
 * AWS_ENDPOINT_URL, or `endpoint_url` in the shared config file (the SDK resolves those itself, unless
 * AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true), else the regional AWS endpoint.
 */
import { SecretsManagerClient, type SecretsManagerClientConfig } from "@aws-sdk/client-secrets-manager";

export interface SecretsManagerClientOptions {
  region?: string;
  /** Overrides every configured endpoint, e.g. the fake server's in tests. */
  endpoint?: string;
  /** Static credentials (tests, the demo). Default: the standard credential chain. */
  credentials?: SecretsManagerClientConfig["credentials"];
  /** TCP connect timeout per attempt. Default 2 s. */
  connectionTimeoutMs?: number;
  /** Whole request timeout per attempt. Default 5 s. */
  requestTimeoutMs?: number;
  /** Attempts including the first, with the SDK's standard retry and backoff. Default 3. */
  maxAttempts?: number;
}

export function createSecretsManagerClient(options: SecretsManagerClientOptions = {}): SecretsManagerClient {
  return new SecretsManagerClient({
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    maxAttempts: options.maxAttempts ?? 3,
    // A plain options object makes the SDK build its NodeHttpHandler with these settings.
    requestHandler: {
      connectionTimeout: options.connectionTimeoutMs ?? 2_000,
      requestTimeout: options.requestTimeoutMs ?? 5_000,
      // Without this the SDK only logs a warning when requestTimeout passes and keeps waiting.
      throwOnRequestTimeout: true,
    },
  });
}
