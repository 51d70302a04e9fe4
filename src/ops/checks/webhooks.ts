/**
 * The supplier's webhook signing secrets: can they be read (from Secrets Manager, or WEBHOOK_SECRETS), are they
 * well-formed `whsec_<base64>` values, and how many are in force (two during a rotation). Without a readable
 * secret every delivery is answered 503 and the supplier's updates pile up on its side. The detail names the
 * secret id and the count, never a value.
 */
import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { readWebhookSecrets } from "../../secrets/webhook-secrets.ts";
import { decodeWebhookSecret, InvalidWebhookSecretError } from "../../supplier/webhook-signature.ts";
import { type CheckOutcome, describeError, fail, ok } from "../check.ts";

export interface WebhookSecretsCheck {
  outcome: CheckOutcome;
  /** The secrets read (never printed): the doctor scrubs them from every detail. */
  secrets: string[];
}

export type WebhookSecretsSource =
  | { kind: "secrets-manager"; client: SecretsManagerClient; secretId: string }
  | { kind: "env"; secrets: readonly string[] };

const count = (n: number) =>
  n === 1
    ? "1 signing secret"
    : `${n} signing secrets (a rotation: remove the old one once the supplier signs with the new)`;

export async function checkWebhookSecrets(source: WebhookSecretsSource): Promise<WebhookSecretsCheck> {
  if (source.kind === "env") {
    const secrets = [...source.secrets];
    if (secrets.length === 0) {
      return { outcome: fail("no webhook secret: set WEBHOOK_SECRET_ID or WEBHOOK_SECRETS"), secrets };
    }
    const bad = secrets.filter((s) => !decodes(s)).length;
    if (bad > 0) {
      return {
        outcome: fail(`${bad} of ${secrets.length} value(s) in WEBHOOK_SECRETS are not whsec_<base64>`),
        secrets,
      };
    }
    return { outcome: ok(`${count(secrets.length)} from WEBHOOK_SECRETS (environment)`), secrets };
  }
  try {
    const read = await readWebhookSecrets(source.client, source.secretId);
    const version = read.versionId ? `, version ${read.versionId}` : "";
    return {
      outcome: ok(
        `read secret ${source.secretId} from Secrets Manager: ${count(read.secrets.length)}${version}`,
      ),
      secrets: read.secrets,
    };
  } catch (error) {
    // SecretsError messages name the secret and what to fix, never its contents.
    return { outcome: fail(describeError(error)), secrets: [] };
  }
}

function decodes(secret: string): boolean {
  try {
    return secret.startsWith("whsec_") && decodeWebhookSecret(secret).length > 0;
  } catch (error) {
    if (error instanceof InvalidWebhookSecretError) return false;
    throw error;
  }
}
