/**
 * The customer file's `supplierEvents` made ready for the webhook route: checked and compiled when Order Desk
 * starts, before anything else is touched (main.ts), so a mistake in it is reported as such.
 */
import type { SupplierEvents } from "../config/supplier-events.ts";
import { ConfigError } from "../config.ts";
import { compileEventMapping, type EventMapper } from "../supplier/event-mapping.ts";
import { webhookSecretProblems } from "../supplier/webhook-signing.ts";

/**
 * The mapping, compiled once; first the secrets in the environment are checked against the signing scheme (their
 * form depends on it; secrets read from Secrets Manager are checked when read).
 */
export function supplierEventsReader(
  supplierEvents: SupplierEvents,
  webhookSecrets: readonly string[],
): EventMapper {
  const problems = webhookSecretProblems(supplierEvents.signing, webhookSecrets);
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `WEBHOOK_SECRETS: ${p}`));
  return compileEventMapping(supplierEvents.mapping);
}
