import {
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import type { Logger } from "pino";
import { SecretMalformedError, type SecretsError } from "./errors.ts";
import { toSecretsError } from "./sdk-errors.ts";

/**
 * The supplier's webhook signing secrets kept in Secrets Manager (WEBHOOK_SECRET_ID). The secret string is
 * one `whsec_…` value, several separated by commas or white space, or JSON `{"secrets": ["whsec_…", …]}`;
 * several are accepted during a rotation.
 *
 * Cached for `ttlMs` like the API key: a failed refresh keeps the last good value, so a Secrets Manager outage
 * does not turn every webhook delivery into a 401. A delivery whose signature matches none of the cached
 * secrets asks for a `refresh`: the secret is read again (at most once per `minRefreshIntervalMs`, one read in
 * flight), so a rotation that retired the old secret is picked up at once instead of after the TTL.
 * No log line or error ever carries a secret's value: only the secret id, its version and how many it holds.
 */
export interface WebhookSecretSourceOptions {
  client: SecretsManagerClient;
  secretId: string;
  ttlMs: number;
  /** A forced refresh within this long of the last read reuses it. Default 30 s. */
  minRefreshIntervalMs?: number;
  now?: () => number;
  logger?: Logger;
}

/** Asked with `{ refresh: true }` after a signature mismatch; plain calls use the cache. */
export type WebhookSecretSource = (request?: { refresh?: boolean }) => Promise<string[]>;

export const DEFAULT_WEBHOOK_SECRET_REFRESH_MS = 30_000;

const SECRET = /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/;

function isWellFormed(value: unknown): value is string {
  // Base64 comes in groups of 4 characters: anything else cannot be decoded to the HMAC key.
  return typeof value === "string" && SECRET.test(value) && (value.length - "whsec_".length) % 4 === 0;
}

/**
 * The secrets a SecretString holds, checked: each must be `whsec_` and base64. Throws `SecretMalformedError`
 * naming the secret and how many values are wrong, never a value.
 */
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
    values = Array.isArray(secrets) ? secrets.map((v) => (typeof v === "string" ? v.trim() : v)) : [];
  } else {
    values = raw.split(/[\s,]+/).filter(Boolean);
  }
  const secrets = values.filter(isWellFormed);
  if (secrets.length === 0 || secrets.length !== values.length) {
    const what =
      text === undefined
        ? "holds no SecretString (binary secrets are not supported)"
        : values.length === 0
          ? "holds no webhook signing secret"
          : `holds ${values.length - secrets.length} of ${values.length} value(s) that are not whsec_<base64>`;
    throw new SecretMalformedError(
      `Secret ${secretId} ${what}: store one whsec_… value, several separated by commas, or ` +
        'JSON {"secrets": ["whsec_…"]} (values not shown; see docs/secrets.md).',
      secretId,
    );
  }
  return [...new Set(secrets)];
}

export interface WebhookSecretsRead {
  secrets: string[];
  versionId: string | null;
}

/** One read of the secret (AWSCURRENT), parsed. Errors are `SecretsError`s naming the secret, never its value. */
export async function readWebhookSecrets(
  client: SecretsManagerClient,
  secretId: string,
): Promise<WebhookSecretsRead> {
  let out: GetSecretValueCommandOutput;
  try {
    out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  } catch (error) {
    throw toSecretsError(error, secretId, "GetSecretValue", null);
  }
  return { secrets: parseWebhookSecrets(out.SecretString, secretId), versionId: out.VersionId ?? null };
}

export function createWebhookSecretSource(options: WebhookSecretSourceOptions): WebhookSecretSource {
  const now = options.now ?? Date.now;
  const minRefreshMs = options.minRefreshIntervalMs ?? DEFAULT_WEBHOOK_SECRET_REFRESH_MS;
  let cached: { secrets: string[]; versionId: string | null; at: number } | null = null;
  /** When the last read started, successful or not: forced refreshes are spaced from it. */
  let lastReadAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<string[]> | null = null;

  const fetchSecrets = async (reason: "load" | "ttl" | "mismatch"): Promise<string[]> => {
    lastReadAt = now();
    try {
      const read = await readWebhookSecrets(options.client, options.secretId);
      const before = cached;
      cached = { ...read, at: now() };
      const changed =
        before !== null &&
        (before.secrets.length !== read.secrets.length ||
          before.secrets.some((s, i) => s !== read.secrets[i]));
      if (before === null || changed) {
        options.logger?.info(
          { secretId: options.secretId, versionId: read.versionId, count: read.secrets.length, reason },
          before === null
            ? "webhook signing secrets loaded"
            : "webhook signing secrets changed in Secrets Manager: now using the new ones",
        );
      }
      return read.secrets;
    } catch (error) {
      const failure = error as SecretsError;
      if (cached) {
        options.logger?.warn(
          { secretId: options.secretId, code: failure.code, reason },
          "could not refresh the webhook secrets; using the last good ones",
        );
        // Try again after a tenth of the TTL rather than on every delivery.
        cached = { ...cached, at: now() - options.ttlMs * 0.9 };
        return cached.secrets;
      }
      throw failure;
    }
  };

  const read = (reason: "load" | "ttl" | "mismatch"): Promise<string[]> => {
    inFlight ??= fetchSecrets(reason).finally(() => {
      inFlight = null;
    });
    return inFlight;
  };

  return async (request = {}) => {
    if (inFlight) return inFlight;
    if (!cached) return read("load");
    if (request.refresh) {
      // A signature mismatch is usually a forged or misdirected delivery, not a rotation: never more than one
      // read per interval, however many arrive.
      if (now() - lastReadAt < minRefreshMs) return cached.secrets;
      return read("mismatch");
    }
    if (now() - cached.at < options.ttlMs) return cached.secrets;
    return read("ttl");
  };
}
