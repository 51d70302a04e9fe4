/** The secret values an environment holds, so that what is printed about the configuration can be scrubbed. */
import type { VariableName } from "../config.ts";

function urlPassword(value: string): string[] {
  try {
    const password = decodeURIComponent(new URL(value).password);
    return password ? [password] : [];
  } catch {
    // Not a URL: the configuration check reports it.
    return [];
  }
}

/**
 * Every secret value the environment holds (tokens, the API key, the webhook secrets, the database URL and its
 * password), valid or not, so that what is printed about the configuration can be scrubbed of them.
 */
export function secretValuesIn(env: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const name of [
    "SLACK_BOT_TOKEN",
    "SLACK_APP_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SUPPLIER_API_KEY",
  ] satisfies VariableName[]) {
    const value = env[name];
    if (value) out.push(value);
  }
  for (const secret of (env.WEBHOOK_SECRETS ?? "").split(/[\s,]+/)) if (secret) out.push(secret);
  const databaseUrl = env.DATABASE_URL;
  if (databaseUrl) {
    out.push(...urlPassword(databaseUrl));
    out.push(databaseUrl);
  }
  // A password written into any other URL (https://user:pass@host) is as secret as the database's.
  for (const name of [
    "SUPPLIER_BASE_URL",
    "SLACK_API_URL",
    "AWS_ENDPOINT_URL_SECRETS_MANAGER",
  ] satisfies VariableName[]) {
    const value = env[name];
    if (value) out.push(...urlPassword(value));
  }
  return out;
}
