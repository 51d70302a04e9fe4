/**
 * What the operators' command line (`order-desk jobs …`, `order-desk orders …`) needs from the configuration:
 * where the store is, and the customer file. Read from the environment given, checked like `order-desk start`
 * checks it, without asking for Slack or supplier settings the command never uses.
 */
import { ConfigError, customerConfigPathIn, VARIABLES } from "../config.ts";

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
