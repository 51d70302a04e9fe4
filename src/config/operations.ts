/**
 * What the operators' command line (`order-desk jobs …`, `order-desk orders …`) needs from the configuration:
 * where the store is, and the customer file. Read from the environment given, checked like `order-desk start`
 * checks it, without asking for Slack or supplier settings the command never uses.
 */
import { ConfigError, customerConfigPathIn, readVariables, VARIABLES, type VariableName } from "../config.ts";

export interface OperationsTarget {
  /** PostgreSQL; absent on the embedded store. */
  databaseUrl: string | null;
  /** The embedded store's directory (when there is no `databaseUrl`). */
  dataDir: string;
  customerConfigPath: string;
}

export function loadOperationsTarget(env: Record<string, string | undefined>): OperationsTarget {
  const url = env.DATABASE_URL?.trim() || null;
  if (url !== null && !VARIABLES.DATABASE_URL.schema.safeParse(url).success) {
    throw new ConfigError(["DATABASE_URL: must be a postgres:// connection string"]);
  }
  return {
    databaseUrl: url,
    dataDir: env.ORDER_DESK_DATA_DIR?.trim() || VARIABLES.ORDER_DESK_DATA_DIR.default,
    customerConfigPath: customerConfigPathIn(env),
  };
}

export interface WebhookCheckTarget {
  customerConfigPath: string;
  toleranceSeconds: number;
  /** The webhook secrets, or where Secrets Manager keeps them (with its region and endpoint). */
  secrets: readonly string[];
  secretId?: string;
  cacheTtlMs: number;
  aws: { region?: string; endpoint?: string };
}

/**
 * What `order-desk events check` needs: the customer file, and the webhook secrets to check a signature with
 * (same schemas and defaults as `loadConfig`). Throws one `ConfigError` listing every problem.
 */
export function loadWebhookCheckTarget(env: Record<string, string | undefined>): WebhookCheckTarget {
  const names = [
    "ORDER_DESK_CONFIG",
    "WEBHOOK_SECRETS",
    "WEBHOOK_SECRET_ID",
    "WEBHOOK_TOLERANCE_SECONDS",
    "SECRETS_CACHE_TTL_MS",
    "AWS_REGION",
    "AWS_ENDPOINT_URL_SECRETS_MANAGER",
  ] as const satisfies readonly VariableName[];
  const { values: r, problems } = readVariables(env, names);
  if ((r.WEBHOOK_SECRETS?.length ?? 0) > 0 && r.WEBHOOK_SECRET_ID !== undefined) {
    problems.push("WEBHOOK_SECRETS and WEBHOOK_SECRET_ID: set one, not both");
  }
  if (problems.length > 0) throw new ConfigError(problems);
  // Every variable with a default is present once there are no problems.
  const d = r as Required<typeof r>;
  return {
    customerConfigPath: d.ORDER_DESK_CONFIG,
    toleranceSeconds: d.WEBHOOK_TOLERANCE_SECONDS,
    secrets: r.WEBHOOK_SECRETS ?? [],
    ...(r.WEBHOOK_SECRET_ID && { secretId: r.WEBHOOK_SECRET_ID }),
    cacheTtlMs: d.SECRETS_CACHE_TTL_MS,
    aws: {
      ...(r.AWS_REGION && { region: r.AWS_REGION }),
      ...(r.AWS_ENDPOINT_URL_SECRETS_MANAGER && { endpoint: r.AWS_ENDPOINT_URL_SECRETS_MANAGER }),
    },
  };
}
