import { z } from "zod";
import { nearestName } from "./config/nearest-name.ts";

/**
 * All of Order Desk's environment configuration, read and validated once at start-up. Nothing else
 * reads `process.env`: every part receives typed options built from the `Config` returned here.
 *
 * Each variable is declared once, with its schema, its default and the sentence the README shows, so
 * the README's table can be checked against this list by a test.
 */

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" })
  .transform((v) => v === "true" || v === "1" || v === "yes");
const int = (min: number, max: number) =>
  z.coerce
    .number({ error: "must be a whole number" })
    .int({ error: "must be a whole number" })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });
const url = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const nonEmpty = z.string().trim().min(1, { error: "must not be empty" });
const list = z.string().transform((v) =>
  v
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean),
);

interface VariableSpec {
  schema: z.ZodType;
  default?: string;
  doc: string;
}

export const VARIABLES = {
  ORDER_DESK_ENV: {
    schema: z.enum(["production", "development", "test"]),
    default: "development",
    doc: "`production` turns on the warnings meant for real deployments (e.g. an API key held in the environment).",
  },
  LOG_LEVEL: {
    schema: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
    default: "info",
    doc: "pino log level. Logs are JSON lines on stdout.",
  },
  LOG_FORMAT: {
    schema: z.enum(["json", "pretty"], { error: "must be json or pretty" }),
    default: "json",
    doc: "`json` (one JSON object a line, for log shippers) or `pretty` (one readable line an entry, for a terminal).",
  },
  LOG_PERSONAL_DATA: {
    schema: bool,
    default: "false",
    doc: "Keep delivery contacts and addresses in logs (redacted by default). For local debugging only.",
  },
  ORDER_DESK_CONFIG: {
    schema: nonEmpty,
    default: "order-desk.config.yml",
    doc: "Path of the customer file: catalog, bundles, profiles, who may order (see docs/configuration.md).",
  },
  ORDER_DESK_DATA_DIR: {
    schema: nonEmpty,
    default: "./data",
    doc: "Directory of the embedded PGlite store, used when `DATABASE_URL` is not set.",
  },
  DATABASE_URL: {
    schema: z.string().regex(/^postgres(ql)?:\/\//, { error: "must be a postgres:// connection string" }),
    doc: "PostgreSQL connection string. Set it to run several replicas; unset uses the embedded store.",
  },
  HTTP_HOST: {
    schema: nonEmpty,
    default: "0.0.0.0",
    doc: "Address of the public HTTP server: webhooks, Slack events in HTTP mode, and `/healthz` and `/readyz` without details for load balancers.",
  },
  HTTP_PORT: { schema: int(0, 65535), default: "3000", doc: "Port of that HTTP server." },
  OPS_HTTP_HOST: {
    schema: nonEmpty,
    default: "127.0.0.1",
    doc: "Address of the operations listener: `/metrics`, `/healthz`, and `/readyz` with each check's result. Loopback by default; set an internal address for a scraper on another host, never a public one.",
  },
  OPS_HTTP_PORT: {
    schema: int(0, 65535),
    default: "9464",
    doc: "Port of the operations listener (must differ from `HTTP_PORT`).",
  },
  SLACK_MODE: {
    schema: z.enum(["socket", "http"]),
    default: "socket",
    doc: "`socket` (Socket Mode, no public URL needed) or `http` (Events API at `/slack/events`, for several replicas).",
  },
  SLACK_BOT_TOKEN: {
    schema: z.string().regex(/^xoxb-/, { error: "must be a bot token starting with xoxb-" }),
    doc: "Bot token from the app's OAuth page. Required.",
  },
  SLACK_APP_TOKEN: {
    schema: z.string().regex(/^xapp-/, { error: "must be an app-level token starting with xapp-" }),
    doc: "App-level token with `connections:write`. Required in Socket Mode.",
  },
  SLACK_SIGNING_SECRET: { schema: nonEmpty, doc: "Signing secret of the Slack app. Required in HTTP mode." },
  SLACK_API_URL: {
    schema: url,
    doc: "Base URL of the Slack Web API, ending in `/api/` (e.g. `http://127.0.0.1:4000/api/`). Only for the offline demo and tests (the fake Slack).",
  },
  SLACK_TIMEOUT_MS: {
    schema: int(100, 120_000),
    default: "10000",
    doc: "Timeout of each Slack Web API call.",
  },
  SUPPLIER_BASE_URL: { schema: url, doc: "Base URL of the supplier's Order Placement API. Required." },
  SUPPLIER_ENVIRONMENT: {
    schema: z.enum(["live", "test"]),
    default: "test",
    doc: "Which supplier environment `SUPPLIER_BASE_URL` is; a key of the other environment is refused.",
  },
  SUPPLIER_API_KEY_SECRET_ID: {
    schema: nonEmpty,
    doc: "Secrets Manager id of the supplier API key (the default profile's key; profiles may name their own).",
  },
  SUPPLIER_API_KEY: {
    schema: nonEmpty,
    doc: "The supplier API key itself, for local use only. Mutually exclusive with `SUPPLIER_API_KEY_SECRET_ID`.",
  },
  SUPPLIER_TIMEOUT_MS: {
    schema: int(100, 300_000),
    default: "15000",
    doc: "Timeout of each supplier attempt.",
  },
  SUPPLIER_MAX_ATTEMPTS: {
    schema: int(1, 10),
    default: "3",
    doc: "Attempts per placement call before the durable job takes over the retrying.",
  },
  SECRETS_CACHE_TTL_MS: {
    schema: int(1000, 86_400_000),
    default: "3600000",
    doc: "How long a key read from Secrets Manager is cached.",
  },
  AWS_REGION: { schema: nonEmpty, doc: "AWS region of Secrets Manager (else the SDK's default chain)." },
  AWS_ENDPOINT_URL_SECRETS_MANAGER: {
    schema: url,
    doc: "Custom Secrets Manager endpoint (a VPC endpoint or a local server).",
  },
  WEBHOOK_SECRETS: {
    schema: list,
    doc: "The supplier's webhook signing secrets, comma-separated; several during a rotation. `whsec_…` for Standard Webhooks (the default); for an HMAC header scheme, the shared secret as the supplier issued it.",
  },
  WEBHOOK_SECRET_ID: {
    schema: nonEmpty,
    doc: "Secrets Manager id holding the webhook secret(s) instead of `WEBHOOK_SECRETS`.",
  },
  WEBHOOK_TOLERANCE_SECONDS: {
    schema: int(1, 3600),
    default: "300",
    doc: "Accepted clock skew of a webhook's timestamp.",
  },
  WEBHOOK_SETTLE_MS: {
    schema: int(0, 60_000),
    default: "500",
    doc: "How long an event waits before posting, so deliveries that arrive out of order are posted in order.",
  },
  ORPHAN_AFTER_MS: {
    schema: int(1000, 7 * 86_400_000),
    default: "900000",
    doc: "An event whose order is still unknown after this long is reported to the admin channel.",
  },
  SHUTDOWN_GRACE_MS: {
    schema: int(0, 600_000),
    default: "20000",
    doc: "On SIGTERM, how long running jobs may take to finish.",
  },
  WORKFLOW_PLACEMENT_DEADLINE_MS: {
    schema: int(10_000, 7 * 86_400_000),
    default: "3600000",
    doc: "How long a Workflow Builder step keeps retrying an unavailable supplier before it fails.",
  },
} satisfies Record<string, VariableSpec>;

export type VariableName = keyof typeof VARIABLES;

/** Prefixes we own: an unknown variable with one of them is almost always a typo, so it is an error. */
const OWNED_PREFIXES = ["ORDER_DESK_", "SUPPLIER_", "SLACK_", "WEBHOOK_", "SECRETS_"];

export class ConfigError extends Error {
  readonly code = "CONFIG_INVALID";
  constructor(readonly problems: string[]) {
    super(
      `Order Desk's configuration has ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n` +
        problems.map((p) => `  - ${p}`).join("\n") +
        "\nSee the configuration table in README.md.",
    );
    this.name = "ConfigError";
  }
}

type Parsed = { [K in VariableName]: z.output<(typeof VARIABLES)[K]["schema"]> };
type Raw = Partial<Parsed>;

function readRaw(env: Record<string, string | undefined>, problems: string[]): Raw {
  const raw: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(VARIABLES) as [VariableName, VariableSpec][]) {
    const value = env[name];
    const text = value === undefined || value === "" ? spec.default : value;
    if (text === undefined) continue;
    const parsed = spec.schema.safeParse(text);
    if (parsed.success) raw[name] = parsed.data;
    else problems.push(`${name}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  }
  for (const name of Object.keys(env)) {
    if (name in VARIABLES) continue;
    if (OWNED_PREFIXES.some((p) => name.startsWith(p))) {
      const near = nearestName(name, Object.keys(VARIABLES));
      problems.push(
        near
          ? `${name}: unknown variable; did you mean ${near}?`
          : `${name}: unknown variable (a typo?); remove it or use one of the documented names`,
      );
    }
  }
  return raw as Raw;
}

export interface Config {
  env: "production" | "development" | "test";
  log: { level: string; format: "json" | "pretty"; logPersonalData: boolean };
  customerConfigPath: string;
  store: { databaseUrl?: string; dataDir: string };
  http: { host: string; port: number };
  /** The operations listener: metrics and readiness details (docs/operations.md). */
  ops: { host: string; port: number };
  slack: {
    mode: "socket" | "http";
    botToken: string;
    appToken?: string;
    signingSecret?: string;
    apiUrl?: string;
    timeoutMs: number;
  };
  supplier: { baseUrl: string; environment: "live" | "test"; timeoutMs: number; maxAttempts: number };
  apiKey: { secretId?: string; envKey?: string; cacheTtlMs: number };
  aws: { region?: string; secretsManagerEndpoint?: string };
  webhooks: {
    secrets: string[];
    secretId?: string;
    toleranceSeconds: number;
    settleMs: number;
    orphanAfterMs: number;
  };
  shutdownGraceMs: number;
  workflowPlacementDeadlineMs: number;
}

/** Reads and checks every variable, and throws one `ConfigError` listing every problem found. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const problems: string[] = [];
  const r = readRaw(env, problems);
  const need = (name: VariableName, why: string) => {
    if (r[name] === undefined && !problems.some((p) => p.startsWith(`${name}:`))) {
      problems.push(`${name}: required ${why}`);
    }
  };
  need("SLACK_BOT_TOKEN", "(the bot token, xoxb-…)");
  need("SUPPLIER_BASE_URL", "(the supplier's base URL)");
  if (r.SLACK_MODE === "socket") need("SLACK_APP_TOKEN", "in Socket Mode (an xapp- token)");
  if (r.SLACK_MODE === "http") need("SLACK_SIGNING_SECRET", "in HTTP mode");
  if (r.OPS_HTTP_PORT !== undefined && r.OPS_HTTP_PORT !== 0 && r.OPS_HTTP_PORT === r.HTTP_PORT) {
    problems.push(
      `OPS_HTTP_PORT: must differ from HTTP_PORT (both ${r.HTTP_PORT}); metrics and readiness details have their own listener`,
    );
  }
  if (r.SUPPLIER_API_KEY !== undefined && r.SUPPLIER_API_KEY_SECRET_ID !== undefined) {
    problems.push("SUPPLIER_API_KEY and SUPPLIER_API_KEY_SECRET_ID: set one, not both");
  }
  if (r.SUPPLIER_API_KEY === undefined && r.SUPPLIER_API_KEY_SECRET_ID === undefined) {
    problems.push("SUPPLIER_API_KEY_SECRET_ID: required (or SUPPLIER_API_KEY for local use)");
  }
  // Their form depends on the signing scheme (customer file, supplierEvents.signing): checked at start-up with it.
  const webhookSecrets = r.WEBHOOK_SECRETS ?? [];
  if (webhookSecrets.length > 0 && r.WEBHOOK_SECRET_ID !== undefined) {
    problems.push("WEBHOOK_SECRETS and WEBHOOK_SECRET_ID: set one, not both");
  }
  if (webhookSecrets.length === 0 && r.WEBHOOK_SECRET_ID === undefined) {
    problems.push("WEBHOOK_SECRETS: required (or WEBHOOK_SECRET_ID) to verify the supplier's webhooks");
  }
  if (problems.length > 0) throw new ConfigError(problems);

  // Every variable with a default is present once there are no problems.
  const d = r as Parsed;
  const opt = <T extends object>(value: T | undefined | "" | false) => (value ? value : {});
  return {
    env: d.ORDER_DESK_ENV,
    log: { level: d.LOG_LEVEL, format: d.LOG_FORMAT, logPersonalData: d.LOG_PERSONAL_DATA },
    customerConfigPath: d.ORDER_DESK_CONFIG,
    store: { dataDir: d.ORDER_DESK_DATA_DIR, ...opt(r.DATABASE_URL && { databaseUrl: r.DATABASE_URL }) },
    http: { host: d.HTTP_HOST, port: d.HTTP_PORT },
    ops: { host: d.OPS_HTTP_HOST, port: d.OPS_HTTP_PORT },
    slack: {
      mode: d.SLACK_MODE,
      botToken: d.SLACK_BOT_TOKEN,
      timeoutMs: d.SLACK_TIMEOUT_MS,
      ...opt(r.SLACK_APP_TOKEN && { appToken: r.SLACK_APP_TOKEN }),
      ...opt(r.SLACK_SIGNING_SECRET && { signingSecret: r.SLACK_SIGNING_SECRET }),
      ...opt(r.SLACK_API_URL && { apiUrl: r.SLACK_API_URL }),
    },
    supplier: {
      baseUrl: d.SUPPLIER_BASE_URL,
      environment: d.SUPPLIER_ENVIRONMENT,
      timeoutMs: d.SUPPLIER_TIMEOUT_MS,
      maxAttempts: d.SUPPLIER_MAX_ATTEMPTS,
    },
    apiKey: {
      cacheTtlMs: d.SECRETS_CACHE_TTL_MS,
      ...opt(r.SUPPLIER_API_KEY_SECRET_ID && { secretId: r.SUPPLIER_API_KEY_SECRET_ID }),
      ...opt(r.SUPPLIER_API_KEY && { envKey: r.SUPPLIER_API_KEY }),
    },
    aws: {
      ...opt(r.AWS_REGION && { region: r.AWS_REGION }),
      ...opt(
        r.AWS_ENDPOINT_URL_SECRETS_MANAGER && { secretsManagerEndpoint: r.AWS_ENDPOINT_URL_SECRETS_MANAGER },
      ),
    },
    webhooks: {
      secrets: webhookSecrets,
      toleranceSeconds: d.WEBHOOK_TOLERANCE_SECONDS,
      settleMs: d.WEBHOOK_SETTLE_MS,
      orphanAfterMs: d.ORPHAN_AFTER_MS,
      ...opt(r.WEBHOOK_SECRET_ID && { secretId: r.WEBHOOK_SECRET_ID }),
    },
    shutdownGraceMs: d.SHUTDOWN_GRACE_MS,
    workflowPlacementDeadlineMs: d.WORKFLOW_PLACEMENT_DEADLINE_MS,
  };
}

/** The process's environment. This module is the one place that reads it; the command line hands it on. */
export function processEnvironment(): Record<string, string | undefined> {
  return process.env;
}

export type SupplierTarget = Config["supplier"];

/**
 * What `order-desk place` needs: the supplier variables only, with the same schemas and defaults as `loadConfig`
 * (a one-off command needs no Slack token or webhook secret). `baseUrl` (from `--base-url`) overrides
 * `SUPPLIER_BASE_URL`. Throws one `ConfigError` listing every problem.
 */
export function loadSupplierTarget(
  env: Record<string, string | undefined>,
  overrides: { baseUrl?: string | undefined } = {},
): SupplierTarget {
  const names = [
    "SUPPLIER_BASE_URL",
    "SUPPLIER_ENVIRONMENT",
    "SUPPLIER_TIMEOUT_MS",
    "SUPPLIER_MAX_ATTEMPTS",
  ] as const satisfies readonly VariableName[];
  const scoped: Record<string, string | undefined> = { ...env };
  if (overrides.baseUrl !== undefined) scoped.SUPPLIER_BASE_URL = overrides.baseUrl;
  const { values: r, problems } = readVariables(scoped, names);
  if (r.SUPPLIER_BASE_URL === undefined && !problems.some((p) => p.startsWith("SUPPLIER_BASE_URL:"))) {
    problems.push("SUPPLIER_BASE_URL: required (the supplier's base URL; or pass --base-url)");
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const d = r as Parsed;
  return {
    baseUrl: d.SUPPLIER_BASE_URL,
    environment: d.SUPPLIER_ENVIRONMENT,
    timeoutMs: d.SUPPLIER_TIMEOUT_MS,
    maxAttempts: d.SUPPLIER_MAX_ATTEMPTS,
  };
}

/**
 * The variables `names` only, with the same schemas and defaults as `loadConfig`, for a command that needs no more
 * (the others are not looked at); `problems` lists what is wrong with them.
 */
export function readVariables<N extends VariableName>(
  env: Record<string, string | undefined>,
  names: readonly N[],
): { values: Partial<Pick<Parsed, N>>; problems: string[] } {
  const scoped: Record<string, string | undefined> = {};
  for (const name of names) scoped[name] = env[name];
  const problems: string[] = [];
  return { values: readRaw(scoped, problems), problems };
}

/**
 * Where the customer file is, from the environment as given, even when the rest of the configuration is
 * invalid (`order-desk doctor` still checks the file then).
 */
export function customerConfigPathIn(env: Record<string, string | undefined>): string {
  return env.ORDER_DESK_CONFIG?.trim() || VARIABLES.ORDER_DESK_CONFIG.default;
}

export { secretValuesIn } from "./config/secret-values.ts";
