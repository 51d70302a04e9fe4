/**
 * The supplier API key: can it be read (from Secrets Manager, or the environment for local use), and when
 * does it expire. Keys live 360 days (supplier spec), so an expiring key is a warning a month ahead and an
 * expired one a failure: every order would be refused with 401.
 */
import { describeKeyExpiry } from "../../secrets/expiry.ts";
import type { ConfiguredApiKeyProvider } from "../../secrets/factory.ts";
import type { ApiKey } from "../../secrets/types.ts";
import { type CheckOutcome, describeError, fail, ok, warn } from "../check.ts";

export const EXPIRY_WARNING_DAYS = 30;

export interface ApiKeyCheck {
  outcome: CheckOutcome;
  /** The key when it could be read, for the checks that look at it (never printed). */
  key: ApiKey | null;
}

export async function checkApiKeyReadable(
  configured: ConfiguredApiKeyProvider,
  options: { production: boolean },
): Promise<ApiKeyCheck> {
  let key: ApiKey;
  try {
    key = await configured.provider.getKey(configured.secretId);
  } catch (error) {
    // SecretsError messages name the secret and what to fix, never its contents.
    return { outcome: fail(describeError(error)), key: null };
  }
  if (configured.source === "env") {
    const detail = `${key.redacted} from SUPPLIER_API_KEY (environment)`;
    return {
      outcome: options.production
        ? warn(`${detail}: in production keep it in Secrets Manager (SUPPLIER_API_KEY_SECRET_ID)`)
        : ok(`${detail}; Secrets Manager not used`),
      key,
    };
  }
  const version = key.versionId ? `, version ${key.versionId}` : "";
  return {
    outcome: ok(`read secret ${configured.secretId} from Secrets Manager (${key.redacted}${version})`),
    key,
  };
}

export function checkKeyExpiry(
  key: ApiKey,
  options: { now: Date; secretId?: string; warningDays?: number },
): CheckOutcome {
  const expiry = describeKeyExpiry(key, options.now, {
    ...(options.secretId ? { secretId: options.secretId } : {}),
    expiringWithinDays: options.warningDays ?? EXPIRY_WARNING_DAYS,
  });
  switch (expiry.status) {
    case "ok":
      return ok(expiry.message);
    case "expiring":
      return warn(`${expiry.message} Ask the supplier for a new key now (docs/operations.md, key rotation).`);
    case "expired":
      return fail(
        `${expiry.message} Orders are refused with 401: store a new key as the secret's AWSCURRENT version.`,
      );
    case "unknown":
      return warn(expiry.message);
  }
}
