import {
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import type { Logger } from "pino";
import {
  STANDARD_WEBHOOKS_SIGNING,
  type WebhookSigning,
  webhookSecretProblems,
} from "../supplier/webhook-signing.ts";
import { SecretMalformedError, type SecretsError } from "./errors.ts";
import { toSecretsError } from "./sdk-errors.ts";

/**
 * The supplier's webhook signing secrets kept in Secrets Manager (WEBHOOK_SECRET_ID). The secret string is
 * one value, several separated by commas or white space, or JSON `{"secrets": ["…", …]}`; several are accepted
 * during a rotation. Each must fit the signing scheme (customer file, `supplierEvents.signing`): `whsec_…` for
 * Standard Webhooks, the supplier's shared secret for an HMAC header.
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
  /** The scheme the secrets are for (default Standard Webhooks). */
  signing?: WebhookSigning;
}

/** Asked with `{ refresh: true }` after a signature mismatch; plain calls use the cache. */
export type WebhookSecretSource = (request?: { refresh?: boolean }) => Promise<string[]>;

export const DEFAULT_WEBHOOK_SECRET_REFRESH_MS = 30_000;

/**
 * The secrets a SecretString holds, checked against the scheme. Throws `SecretMalformedError` naming the secret
 * and how many values are wrong, never a value.
 */
export function parseWebhookSecrets(
  text: string | undefined,
  secretId: string,
  signing: WebhookSigning = STANDARD_WEBHOOKS_SIGNING,
): string[] {
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
  const secrets = values.filter(
    (v): v is string => typeof v === "string" && webhookSecretProblems(signing, [v]).length === 0,
  );
  if (secrets.length === 0 || secrets.length !== values.length) {
    const form = signing.scheme === "standard-webhooks" ? "whsec_<base64>" : "usable HMAC secrets";
    const what =
      text === undefined
        ? "holds no SecretString (binary secrets are not supported)"
        : values.length === 0
          ? "holds no webhook signing secret"
          : `holds ${values.length - secrets.length} of ${values.length} value(s) that are not ${form} (${signing.scheme})`;
    throw new SecretMalformedError(
      `Secret ${secretId} ${what}: store one value, several separated by commas, or ` +
        'JSON {"secrets": ["…"]} (values not shown; see docs/secrets.md).',
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
  signing?: WebhookSigning,
): Promise<WebhookSecretsRead> {
  let out: GetSecretValueCommandOutput;
  try {
    out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  } catch (error) {
    throw toSecretsError(error, secretId, "GetSecretValue", null);
  }
  return {
    secrets: parseWebhookSecrets(out.SecretString, secretId, signing),
    versionId: out.VersionId ?? null,
  };
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
      const read = await readWebhookSecrets(options.client, options.secretId, options.signing);
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
