/**
 * `order-desk doctor`: every dependency Order Desk needs, checked the way the running app uses it, each with
 * a deadline. Read-only: it places no order, posts nothing to Slack, applies no migration and runs no job.
 *
 * Checks that need another's result (the key's environment and expiry need the key; failed jobs and orphan
 * events need the database) run after it, and say "not checked" when it is missing. The API key checks run
 * for every secret in use: the deployment's and each profile's own.
 */
import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { type Logger, pino } from "pino";
import type { CustomerConfig } from "../config/customer.ts";
import { type Config, ConfigError, customerConfigPathIn, loadConfig, secretValuesIn } from "../config.ts";
import { createSecretsManagerClient, type SecretsManagerClientOptions } from "../secrets/client.ts";
import { type ConfiguredApiKeyProvider, createApiKeyProvider } from "../secrets/factory.ts";
import type { ApiKey } from "../secrets/types.ts";
import type { Store } from "../store/db.ts";
import { parseApiKey } from "../supplier/keys.ts";
import {
  type CheckOutcome,
  type CheckResult,
  describeError,
  fail,
  note,
  ok,
  runCheck,
  scrubSecrets,
  warn,
} from "./check.ts";
import { approverGroupsIn, checkApproverGroups } from "./checks/approvers.ts";
import { type CustomerConfigLoader, checkCustomerConfig } from "./checks/customer.ts";
import { checkMigrations, openStoreForCheck } from "./checks/database.ts";
import { checkFailedJobs } from "./checks/jobs.ts";
import { checkOrphanEvents } from "./checks/orphans.ts";
import { checkApiKeyReadable, checkKeyExpiry } from "./checks/secrets.ts";
import { checkSlackAuth, checkSlackSocket } from "./checks/slack.ts";
import { checkKeyEnvironment, checkSupplierReachable } from "./checks/supplier.ts";
import { checkUnreadableEvents } from "./checks/unreadable.ts";
import { checkWebhookSecrets } from "./checks/webhooks.ts";

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

export interface DoctorOptions {
  /** Deadline of each check. Default 10 s. */
  timeoutMs?: number;
  now?: () => Date;
  logger?: Logger;
  /** Check this store instead of opening the configured one (tests, or a caller that already has it). Not closed. */
  store?: Store;
  /** Options for the Secrets Manager client the doctor builds (tests pass static credentials). */
  secretsClientOptions?: SecretsManagerClientOptions;
  /** How the customer file is loaded; default src/config/customer.ts `loadCustomerConfig`. */
  loadCustomerConfig?: CustomerConfigLoader;
}

/**
 * Runs the checks and returns one result per line, in this order: config, customer-config, slack, slack-socket
 * (Socket Mode only), supplier,
 * api-key, api-key-environment, api-key-expiry (again as `api-key[<secret id>]`… for each profile's own
 * secret), webhook-secrets, database, failed-jobs, orphan-events, unreadable-events. With an invalid configuration only the
 * first two run.
 */
export async function runDoctorChecks(
  env: Record<string, string | undefined>,
  options: DoctorOptions = {},
): Promise<CheckResult[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const now = options.now ?? (() => new Date());
  const logger = options.logger ?? pino({ level: "silent" });
  const secrets = secretValuesIn(env);
  const results: CheckResult[] = [];
  // The safety net: whatever a dependency's error message echoed, no known secret is printed.
  const report = () => results.map((r) => ({ ...r, detail: scrubSecrets(r.detail, secrets) }));

  let config: Config | null = null;
  try {
    config = loadConfig(env);
    results.push({ name: "config", ...ok(describeConfig(config)) });
  } catch (error) {
    const detail =
      error instanceof ConfigError
        ? `${error.problems.length} problem${error.problems.length === 1 ? "" : "s"}: ${error.problems.join("; ")}`
        : describeError(error);
    results.push({ name: "config", ...fail(detail) });
  }

  let customer: CustomerConfig | null = null;
  const customerPath = config?.customerConfigPath ?? customerConfigPathIn(env);
  results.push(
    await runCheck("customer-config", timeoutMs, async () => {
      const checked = await checkCustomerConfig(customerPath, {
        ...(config ? { environment: config.supplier.environment } : {}),
        ...(options.loadCustomerConfig ? { loader: options.loadCustomerConfig } : {}),
      });
      customer = checked.config;
      return checked.outcome;
    }),
  );
  if (!config) return report();
  const cfg: Config = config;

  // Filled by the first round of checks, read by the second (an object: closures cannot narrow plain `let`s).
  const held: { store: Store | null; secretsClient: SecretsManagerClient | null } = {
    store: null,
    secretsClient: null,
  };
  if (cfg.apiKey.secretId || cfg.webhooks.secretId) {
    held.secretsClient = createSecretsManagerClient({
      ...(cfg.aws.region ? { region: cfg.aws.region } : {}),
      ...(cfg.aws.secretsManagerEndpoint ? { endpoint: cfg.aws.secretsManagerEndpoint } : {}),
      // One attempt within the check's deadline: the doctor reports, the app retries.
      maxAttempts: 1,
      connectionTimeoutMs: Math.min(2_000, timeoutMs),
      requestTimeoutMs: timeoutMs,
      ...options.secretsClientOptions,
    });
  }
  try {
    let configured: ConfiguredApiKeyProvider | null = null;
    let providerProblem: string | null = null;
    try {
      configured = createApiKeyProvider({
        secretId: cfg.apiKey.secretId,
        envKey: cfg.apiKey.envKey,
        ...(held.secretsClient ? { client: held.secretsClient } : {}),
        logger,
        now,
      });
    } catch (error) {
      providerProblem = describeError(error);
    }
    const secretIds = configured ? secretIdsInUse(configured, customer) : [];

    const appToken = cfg.slack.mode === "socket" ? cfg.slack.appToken : undefined;
    const [slack, slackSocket, supplier, webhookSecrets, database, ...keys] = await Promise.all([
      runCheck("slack", timeoutMs, () =>
        checkSlackAuth({
          botToken: cfg.slack.botToken,
          timeoutMs: Math.min(cfg.slack.timeoutMs, timeoutMs),
          ...(cfg.slack.apiUrl ? { apiUrl: cfg.slack.apiUrl } : {}),
        }),
      ),
      appToken
        ? runCheck("slack-socket", timeoutMs, (signal) =>
            checkSlackSocket({
              appToken,
              timeoutMs: Math.min(cfg.slack.timeoutMs, timeoutMs),
              signal,
              ...(cfg.slack.apiUrl ? { apiUrl: cfg.slack.apiUrl } : {}),
            }),
          )
        : null,
      runCheck("supplier", timeoutMs, (signal) =>
        checkSupplierReachable({
          baseUrl: cfg.supplier.baseUrl,
          timeoutMs: Math.min(cfg.supplier.timeoutMs, timeoutMs),
          signal,
        }),
      ),
      runCheck("webhook-secrets", timeoutMs, async () => {
        const checked = await checkWebhookSecrets(
          cfg.webhooks.secretId && held.secretsClient
            ? { kind: "secrets-manager", client: held.secretsClient, secretId: cfg.webhooks.secretId }
            : { kind: "env", secrets: cfg.webhooks.secrets },
          (customer as CustomerConfig | null)?.supplierEvents.signing,
        );
        secrets.push(...checked.secrets);
        return checked.outcome;
      }),
      runCheck("database", timeoutMs, async () => {
        if (options.store) {
          held.store = options.store;
        } else {
          const opened = await openStoreForCheck({
            ...(cfg.store.databaseUrl ? { databaseUrl: cfg.store.databaseUrl } : {}),
            dataDir: cfg.store.dataDir,
            timeoutMs,
            logger,
          });
          if (opened.outcome) return opened.outcome;
          held.store = opened.store;
        }
        return held.store ? checkMigrations(held.store) : fail("the store could not be opened");
      }),
      ...(configured
        ? secretIds.map((secretId, i) =>
            checkKey(configured, secretId, i === 0 ? "" : `[${secretId}]`, cfg, { timeoutMs, now, secrets }),
          )
        : [
            Promise.resolve([
              { name: "api-key", ...fail(providerProblem ?? "no API key configured") },
              { name: "api-key-environment", ...notChecked("the API key could not be read") },
              { name: "api-key-expiry", ...notChecked("the API key could not be read") },
            ]),
          ]),
    ]);
    // Only when a profile names approver groups (src/orders/approvals/).
    const approvers =
      customer && approverGroupsIn(customer).size > 0
        ? await runCheck("approver-groups", timeoutMs, () =>
            checkApproverGroups(customer!, {
              botToken: cfg.slack.botToken,
              timeoutMs: Math.min(cfg.slack.timeoutMs, timeoutMs),
              ...(cfg.slack.apiUrl ? { apiUrl: cfg.slack.apiUrl } : {}),
            }),
          )
        : null;
    results.push(
      slack,
      ...(approvers ? [approvers] : []),
      ...(slackSocket ? [slackSocket] : []),
      supplier,
      ...keys.flat(),
      webhookSecrets,
      database,
    );

    // A store a start will create or migrate has no jobs or events to look at yet: a note, like its database line.
    const skipped =
      database.status === "note"
        ? note("not checked: the database is not created or migrated yet")
        : database.status === "fail" || !held.store
          ? notChecked("no database")
          : null;
    const store = skipped ? null : held.store;
    const [failedJobs, orphans, unreadable] = await Promise.all([
      store
        ? runCheck("failed-jobs", timeoutMs, () => checkFailedJobs(store))
        : { name: "failed-jobs", ...(skipped as CheckOutcome) },
      store
        ? runCheck("orphan-events", timeoutMs, () =>
            checkOrphanEvents(store, { orphanAfterMs: cfg.webhooks.orphanAfterMs, now: now() }),
          )
        : { name: "orphan-events", ...(skipped as CheckOutcome) },
      store
        ? runCheck("unreadable-events", timeoutMs, () => checkUnreadableEvents(store))
        : { name: "unreadable-events", ...(skipped as CheckOutcome) },
    ]);
    results.push(failedJobs, orphans, unreadable);
  } finally {
    held.secretsClient?.destroy();
    if (!options.store && held.store) await held.store.close().catch(() => {});
  }
  return report();
}

const notChecked = (why: string): CheckOutcome => warn(`not checked: ${why}`);

/** The deployment's secret first, then each profile's own (once each). The environment key serves them all. */
function secretIdsInUse(configured: ConfiguredApiKeyProvider, customer: CustomerConfig | null): string[] {
  if (configured.source === "env") return [configured.secretId];
  const ids = [configured.secretId];
  for (const profile of customer?.profiles ?? []) {
    if (profile.apiKeySecretId && !ids.includes(profile.apiKeySecretId)) ids.push(profile.apiKeySecretId);
  }
  return ids;
}

/** api-key, api-key-environment and api-key-expiry for one secret. */
async function checkKey(
  configured: ConfiguredApiKeyProvider,
  secretId: string,
  suffix: string,
  cfg: Config,
  context: { timeoutMs: number; now: () => Date; secrets: string[] },
): Promise<CheckResult[]> {
  const held: { key: ApiKey | null } = { key: null };
  const readable = await runCheck(`api-key${suffix}`, context.timeoutMs, async () => {
    const checked = await checkApiKeyReadable(
      { ...configured, secretId },
      { production: cfg.env === "production" },
    );
    held.key = checked.key;
    if (checked.key) context.secrets.push(checked.key.value);
    return checked.outcome;
  });
  const { key } = held;
  if (!key) {
    return [
      readable,
      { name: `api-key-environment${suffix}`, ...notChecked("the API key could not be read") },
      { name: `api-key-expiry${suffix}`, ...notChecked("the API key could not be read") },
    ];
  }
  const parsed = parseApiKey(key.value);
  return [
    readable,
    {
      name: `api-key-environment${suffix}`,
      ...checkKeyEnvironment({
        keyEnvironment: parsed.environment,
        redactedKey: parsed.redacted,
        target: cfg.supplier.environment,
        baseUrl: cfg.supplier.baseUrl,
      }),
    },
    {
      name: `api-key-expiry${suffix}`,
      ...checkKeyExpiry(key, {
        now: context.now(),
        ...(configured.source === "secrets-manager" ? { secretId } : {}),
      }),
    },
  ];
}

function describeConfig(config: Config): string {
  const store = config.store.databaseUrl ? "PostgreSQL" : `embedded store in ${config.store.dataDir}`;
  const key = config.apiKey.secretId
    ? `key from secret ${config.apiKey.secretId}`
    : "key from SUPPLIER_API_KEY";
  return `valid (${config.env}; Slack ${config.slack.mode} mode; supplier ${config.supplier.environment}; ${key}; ${store})`;
}
