/**
 * The supplier's webhook signing secrets: can they be read (from Secrets Manager, or WEBHOOK_SECRETS), do they fit
 * the signing scheme (`whsec_<base64>` for Standard Webhooks), and how many are in force (two during a rotation). Without a readable
 * secret every delivery is answered 503 and the supplier's updates pile up on its side. The detail names the
 * secret id and the count, never a value.
 */
import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { readWebhookSecrets } from "../../secrets/webhook-secrets.ts";
import {
  STANDARD_WEBHOOKS_SIGNING,
  type WebhookSigning,
  webhookSecretProblems,
} from "../../supplier/webhook-signing.ts";
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

export async function checkWebhookSecrets(
  source: WebhookSecretsSource,
  signing: WebhookSigning = STANDARD_WEBHOOKS_SIGNING,
): Promise<WebhookSecretsCheck> {
  if (source.kind === "env") {
    const secrets = [...source.secrets];
    if (secrets.length === 0) {
      return { outcome: fail("no webhook secret: set WEBHOOK_SECRET_ID or WEBHOOK_SECRETS"), secrets };
    }
    const problems = webhookSecretProblems(signing, secrets);
    if (problems.length > 0) return { outcome: fail(`WEBHOOK_SECRETS: ${problems.join("; ")}`), secrets };
    return { outcome: ok(`${count(secrets.length)} from WEBHOOK_SECRETS (environment)`), secrets };
  }
  try {
    const read = await readWebhookSecrets(source.client, source.secretId, signing);
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
