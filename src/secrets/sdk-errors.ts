/**
 * Maps what the AWS SDK throws to our closed hierarchy, with messages that say what to check.
 * The SDK's service errors carry the AWS message and request metadata, never the secret, so they are kept as `cause`.
 */
import {
  SecretAccessDeniedError,
  SecretNotFoundError,
  SecretsConfigurationError,
  type SecretsError,
  SecretUnavailableError,
} from "./errors.ts";

export type SecretsOperation = "GetSecretValue" | "DescribeSecret";

const PERMISSIONS_HINT =
  "The identity Order Desk runs as needs secretsmanager:GetSecretValue and secretsmanager:DescribeSecret on the " +
  "secret's ARN (and kms:Decrypt on its KMS key when that is a customer managed key).";

export function toSecretsError(
  error: unknown,
  secretId: string,
  operation: SecretsOperation,
  region: string | null,
): SecretsError {
  const name = error instanceof Error ? error.name : "UnknownError";
  const awsMessage = error instanceof Error ? error.message : String(error);
  const where = region ? ` in region ${region}` : "";
  const cause = { cause: error };
  switch (name) {
    case "ResourceNotFoundException":
      return new SecretNotFoundError(
        `Secret ${secretId} was not found${where} (${operation}: ${awsMessage}). Check the secret id ` +
          "(SUPPLIER_API_KEY_SECRET_ID or the profile's secret, name or full ARN), the AWS region, and that the " +
          "secret has an AWSCURRENT version.",
        secretId,
        cause,
      );
    case "AccessDeniedException":
      return new SecretAccessDeniedError(
        `Access to secret ${secretId} was denied (${operation}). ${PERMISSIONS_HINT} AWS said: ${awsMessage}`,
        secretId,
        cause,
      );
    case "DecryptionFailure":
      return new SecretAccessDeniedError(
        `Secrets Manager could not decrypt secret ${secretId}: the KMS key refused. Grant kms:Decrypt on the ` +
          `secret's KMS key to the identity Order Desk runs as. AWS said: ${awsMessage}`,
        secretId,
        cause,
      );
    case "InvalidRequestException":
      return new SecretNotFoundError(
        `Secrets Manager refused ${operation} for secret ${secretId}: ${awsMessage} If the secret is scheduled ` +
          "for deletion, restore it (aws secretsmanager restore-secret) or point Order Desk at another secret.",
        secretId,
        cause,
      );
    case "InvalidParameterException":
      return new SecretsConfigurationError(
        `Secret id ${JSON.stringify(secretId)} was rejected by Secrets Manager: ${awsMessage} Use the secret's name or full ARN.`,
        secretId,
        cause,
      );
    case "CredentialsProviderError":
      return new SecretUnavailableError(
        `Could not load AWS credentials to read secret ${secretId}: ${awsMessage} Configure the standard AWS ` +
          "credential chain (an instance/task role, AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY).",
        secretId,
        cause,
      );
  }
  if (/region is missing/i.test(awsMessage)) {
    return new SecretsConfigurationError(
      `No AWS region is configured for reading secret ${secretId}. Set AWS_REGION (or a region in the AWS profile), or use the secret's full ARN together with AWS_REGION.`,
      secretId,
      cause,
    );
  }
  return new SecretUnavailableError(
    `Secrets Manager ${operation} for secret ${secretId} failed (${name}: ${awsMessage}). This is usually ` +
      "temporary; if it persists, check network access to the Secrets Manager endpoint and the AWS status page.",
    secretId,
    cause,
  );
}
