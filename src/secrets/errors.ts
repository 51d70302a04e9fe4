/**
 * The closed set of errors `src/secrets/` throws. Callers switch on `code`. Messages name the secret id and what to
 * check; no error ever holds a key value or a secret's contents (not even in `cause`).
 */

export type SecretsErrorCode =
  | "SECRET_NOT_FOUND"
  | "SECRET_ACCESS_DENIED"
  | "SECRET_MALFORMED"
  | "SECRET_UNAVAILABLE"
  | "SECRETS_CONFIGURATION";

export interface SecretsErrorOptions {
  /** Only errors known not to carry secret material (SDK service errors, MalformedApiKeyError). */
  cause?: unknown;
}

export abstract class SecretsError extends Error {
  abstract readonly code: SecretsErrorCode;
  override readonly cause: unknown;
  /** The Secrets Manager secret id (name or ARN), or the environment variable the key came from. */
  readonly secretId: string | null;

  constructor(message: string, secretId: string | null, options: SecretsErrorOptions = {}) {
    super(message);
    this.name = new.target.name;
    this.secretId = secretId;
    this.cause = options.cause;
  }

  /** A plain, log-safe shape. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, secretId: this.secretId };
  }
}

/** ResourceNotFoundException: no such secret, or no version with the requested stage. */
export class SecretNotFoundError extends SecretsError {
  readonly code = "SECRET_NOT_FOUND";
}

/** AccessDeniedException (IAM) or DecryptionFailure (KMS). */
export class SecretAccessDeniedError extends SecretsError {
  readonly code = "SECRET_ACCESS_DENIED";
}

/** The secret exists but does not hold a usable supplier key. */
export class SecretMalformedError extends SecretsError {
  readonly code = "SECRET_MALFORMED";
}

/** Secrets Manager could not be reached or failed (5xx, throttling, timeout, credentials not loadable). */
export class SecretUnavailableError extends SecretsError {
  readonly code = "SECRET_UNAVAILABLE";
}

/** Both or neither of SUPPLIER_API_KEY_SECRET_ID / SUPPLIER_API_KEY set, or the AWS region is missing. */
export class SecretsConfigurationError extends SecretsError {
  readonly code = "SECRETS_CONFIGURATION";
}

export function isSecretsError(value: unknown): value is SecretsError {
  return value instanceof SecretsError;
}

/** Our errors expose a log-safe toJSON; anything else is reduced to its name and message. */
export function logSafe(error: unknown): Record<string, unknown> {
  if (isSecretsError(error)) return error.toJSON();
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { message: String(error) };
}
