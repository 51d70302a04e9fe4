/**
 * Our whole app as users run it: `node bin/order-desk.js start` in its own process, configured only through
 * its environment (src/config.ts), Slack in HTTP mode against a fake Slack, ready when `/readyz` answers 200.
 */
import { join } from "node:path";
import { VARIABLES } from "../../src/config.ts";
import { freePort } from "../../tools/world.ts";
import { BENCH_TEST_KEY } from "./fixtures.ts";
import type { BenchContext } from "./types.ts";

export const SIGNING_SECRET = "bench-signing-secret-0123456789abcdef";
export const BOT_TOKEN = "xoxb-bench";

export type StoreTarget = { dataDir: string } | { databaseUrl: string };

export interface OrderDeskProcessOptions {
  store: StoreTarget;
  slackApiUrl: string;
  supplierBaseUrl: string;
  webhookSecret: string;
  /** More variables (e.g. `LOG_LEVEL`); they win over the defaults set here. */
  env?: Record<string, string>;
  /** Run under `ctx.oursNodeArgs` (`--cpu-prof` with `--profile`); default true. */
  profile?: boolean;
  timeoutMs?: number;
  /** Keep the app's log in this file. */
  logFile?: string;
}

/** A port free right now (the app is told its port up front, so `/readyz` can be polled from the spawn on). */
export { freePort };

/** Every variable the app reads: none may leak in from the shell running the bench (a DATABASE_URL would). */
const APP_VARIABLES = Object.keys(VARIABLES);

export async function startOrderDeskProcess(ctx: BenchContext, options: OrderDeskProcessOptions) {
  const port = await freePort();
  const env: Record<string, string> = {
    ORDER_DESK_ENV: "development",
    ORDER_DESK_CONFIG: join(ctx.root, "examples", "order-desk.config.yml"),
    HTTP_HOST: "127.0.0.1",
    HTTP_PORT: String(port),
    // Replicas of the scaling benchmark run side by side: metrics and readiness details on any free port.
    OPS_HTTP_PORT: "0",
    SLACK_MODE: "http",
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: options.slackApiUrl,
    SUPPLIER_BASE_URL: options.supplierBaseUrl,
    SUPPLIER_ENVIRONMENT: "test",
    SUPPLIER_API_KEY: BENCH_TEST_KEY,
    WEBHOOK_SECRETS: options.webhookSecret,
    ...("databaseUrl" in options.store
      ? { DATABASE_URL: options.store.databaseUrl }
      : { ORDER_DESK_DATA_DIR: options.store.dataDir }),
    ...options.env,
  };
  return ctx.startServer("bin/order-desk.js", null, {
    args: ["start"],
    tsx: false,
    env,
    unsetEnv: APP_VARIABLES,
    nodeArgs: options.profile === false ? [] : ctx.oursNodeArgs,
    readyUrl: `http://127.0.0.1:${port}/readyz`,
    timeoutMs: options.timeoutMs ?? 60_000,
    ...(options.logFile ? { logFile: options.logFile } : {}),
  });
}
