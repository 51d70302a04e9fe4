import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { Logger } from "pino";
import { SecretMalformedError } from "./errors.ts";
import { toSecretsError } from "./sdk-errors.ts";

/**
 * The supplier's webhook signing secrets kept in Secrets Manager (WEBHOOK_SECRET_ID). The secret string is
 * one `whsec_…` value, several separated by commas or white space, or JSON `{"secrets": ["whsec_…", …]}`;
 * several are accepted during a rotation. Cached like the API key: a failed refresh keeps the last good
 * value, so a Secrets Manager outage does not turn every webhook delivery into a 401.
 */
export interface WebhookSecretSourceOptions {
  client: SecretsManagerClient;
  secretId: string;
  ttlMs: number;
  now?: () => number;
  logger?: Logger;
}

const SECRET = /^whsec_[A-Za-z0-9+/=]{16,}$/;

export function parseWebhookSecrets(text: string | undefined, secretId: string): string[] {
  const raw = (text ?? "").trim();
  let values: unknown[];
  if (raw.startsWith("{")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = null;
    }
    const secrets = (parsed as { secrets?: unknown } | null)?.secrets;
    values = Array.isArray(secrets) ? secrets : [];
  } else {
    values = raw.split(/[\s,]+/).filter(Boolean);
  }
  const secrets = values.filter((v): v is string => typeof v === "string" && SECRET.test(v));
  if (secrets.length === 0 || secrets.length !== values.length) {
    throw new SecretMalformedError(
      `Secret ${secretId} does not hold webhook signing secrets: store one whsec_… value, several separated by ` +
        'commas, or JSON {"secrets": ["whsec_…"]} (value not shown).',
      secretId,
    );
  }
  return secrets;
}

export function createWebhookSecretSource(options: WebhookSecretSourceOptions): () => Promise<string[]> {
  const now = options.now ?? Date.now;
  let cached: { secrets: string[]; at: number } | null = null;
  let inFlight: Promise<string[]> | null = null;

  const fetchSecrets = async (): Promise<string[]> => {
    try {
      const out = await options.client.send(new GetSecretValueCommand({ SecretId: options.secretId }));
      const secrets = parseWebhookSecrets(out.SecretString, options.secretId);
      cached = { secrets, at: now() };
      return secrets;
    } catch (error) {
      const failure =
        error instanceof SecretMalformedError
          ? error
          : toSecretsError(error, options.secretId, "GetSecretValue", null);
      if (cached) {
        options.logger?.warn(
          { secretId: options.secretId, code: failure.code },
          "could not refresh the webhook secrets; using the last good ones",
        );
        // Try again after a tenth of the TTL rather than on every delivery.
        cached = { secrets: cached.secrets, at: now() - options.ttlMs * 0.9 };
        return cached.secrets;
      }
      throw failure;
    }
  };

  return async () => {
    if (cached && now() - cached.at < options.ttlMs) return cached.secrets;
    inFlight ??= fetchSecrets().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}
