/** The shapes every caller of `src/secrets/` codes against. */
import type { SupplierEnvironment } from "../supplier/keys.ts";

export type ApiKeyStage = "AWSCURRENT" | "AWSPREVIOUS" | "env";

/** Where `expiresAt` came from: the secret's own `expiresAt`, the version's CreatedDate + lifetime, or unknown. */
export type ExpirySource = "secret" | "created-date" | "configured" | "none";

export interface ApiKey {
  /** The key itself. Pass it to the supplier client and nowhere else: never log it, never put it in an error. */
  value: string;
  /** The Secrets Manager version id; absent for a key from the environment. */
  versionId?: string;
  stage: ApiKeyStage;
  expiresAt: Date | null;
  /** Prefix plus the last four characters (`ops_live_…3f9a`): the only form fit for logs and messages. */
  redacted: string;
  /** "live" or "test", from the key's prefix. */
  environment?: SupplierEnvironment;
  /** CreatedDate of the Secrets Manager version. */
  createdAt?: Date | null;
  expirySource?: ExpirySource;
}

export interface ApiKeyProvider {
  /** The current key (AWSCURRENT), from the cache while it is fresh. */
  getKey(secretId: string): Promise<ApiKey>;
  /** Fetches the current key again, ignoring the cache (after the supplier rejected the cached one). */
  refresh(secretId: string): Promise<ApiKey>;
  /** The AWSPREVIOUS version (the rotation grace period), or null when there is none. */
  previous(secretId: string): Promise<ApiKey | null>;
}
