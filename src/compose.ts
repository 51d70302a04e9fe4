/**
 * What `startOrderDesk` (main.ts) starts once it has read the customer file and begun opening the store: every
 * other part of the app, built with its dependencies and started in order, stopped in the reverse order. No
 * business rule lives here.
 *
 * A module of its own so that what it imports (Slack, the job queue, the supplier's client: most of the app)
 * loads while the store opens instead of before (main.ts says why).
 */
import type { Logger } from "pino";
import type { Customer } from "./config/catalog.ts";
import type { Config } from "./config.ts";
import { createReadiness, healthRoutes, socketCheck, storeCheck } from "./http/health.ts";
import { metricsRoute } from "./http/metrics.ts";
import { type HttpServer, startHttpServer } from "./http/server.ts";
import { workJobs } from "./job-workers.ts";
import { createJobs } from "./jobs/index.ts";
import type { OrderDesk, StartOptions } from "./main.ts";
import { createMetrics } from "./metrics.ts";
import { registerBudgetMetrics } from "./metrics-budgets.ts";
import { meteredSupplier } from "./metrics-supplier.ts";
import { spendThisMonth } from "./orders/budget/spend.ts";
import type { AdminAlert } from "./orders/ports.ts";
import { ChannelPacer } from "./orders/updates/pacer.ts";
import { redactUrl } from "./redact-url.ts";
import { ExpiryWatch } from "./secrets/expiry.ts";
import { createApiKeyProvider, createWebhookSecrets } from "./secrets/factory.ts";
import { supplierKeyCheck } from "./secrets/readiness.ts";
import { createSlackApp, SLACK_EVENTS_PATH } from "./slack/app.ts";
import * as functions from "./slack/listeners/functions/index.ts";
import { checkBotToken, HistoryPace } from "./slack/outbound/index.ts";
import type { Store } from "./store/db.ts";
import { SupplierClient } from "./supplier/client.ts";
import type { EventMapper } from "./supplier/event-mapping.ts";
import { buildInfo } from "./version.ts";
import { startSupplierSide } from "./webhooks/wiring.ts";

export interface Started {
  config: Config;
  options: StartOptions;
  logger: Logger;
  customer: Customer;
  eventMapper: EventMapper;
  /** The store, opening since before this module loaded; closed by `stop` (and by a failed start). */
  opening: Promise<Store>;
}

/** Starts the rest of the app on the store `opening` resolves to; on failure stops what it started and throws. */
export async function composeOrderDesk(started: Started): Promise<OrderDesk> {
  const { config, options, logger, customer, eventMapper, opening } = started;
  const production = config.env === "production";
  const now = options.now ?? (() => new Date());
  const metrics = createMetrics({ defaultMetrics: options.defaultMetrics ?? true });

  const cleanups: Array<() => Promise<void> | void> = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        logger.error({ err: error }, "error while stopping");
      }
    }
  };

  // Slack's auth.test runs while the store opens (both take a few hundred milliseconds at start-up); its
  // failure is awaited, and reported, below.
  const botIdentityCheck = checkBotToken({
    token: config.slack.botToken,
    timeoutMs: config.slack.timeoutMs,
    apiUrl: config.slack.apiUrl,
  });
  botIdentityCheck.catch(() => {});

  // The supplier API keys are read, and Secrets Manager's webhook secrets source set up, while the store opens: from
  // Secrets Manager that is loading the AWS SDK and a round trip, which the key expiry check and the first /readyz
  // (it checks the keys) otherwise waited for after the job queue had started. A failure is left to them to report.
  const secretsClientOptions = {
    ...(config.aws.region ? { region: config.aws.region } : {}),
    ...(config.aws.secretsManagerEndpoint ? { endpoint: config.aws.secretsManagerEndpoint } : {}),
    ...(options.secretsCredentials ? { credentials: options.secretsCredentials } : {}),
  };
  const apiKeys = createApiKeyProvider({
    secretId: config.apiKey.secretId,
    envKey: config.apiKey.envKey,
    ttlMs: config.apiKey.cacheTtlMs,
    production,
    logger,
    clientOptions: secretsClientOptions,
  });
  const secretIds = [
    apiKeys.secretId,
    ...customer.config.profiles.flatMap((p) => (p.apiKeySecretId ? [p.apiKeySecretId] : [])),
  ];
  const keyCheck = supplierKeyCheck(apiKeys.provider, secretIds);
  keyCheck(new AbortController().signal).catch(() => {});
  const webhookSecretsLoading = createWebhookSecrets({
    signing: customer.config.supplierEvents.signing,
    secretId: config.webhooks.secretId,
    secrets: config.webhooks.secrets,
    ttlMs: config.apiKey.cacheTtlMs,
    logger,
    clientOptions: secretsClientOptions,
  });
  webhookSecretsLoading.catch(() => {});

  try {
    const store = await opening;
    cleanups.push(() => store.close());
    // Month-to-date spend against budget per profile, read at each scrape (no gauges without a budget).
    if (customer.config.profiles.some((p) => p.budget))
      registerBudgetMetrics(metrics.registry, () => spendThisMonth(store, customer.config, now()));

    // Created before the job workers so that it is closed after them on shutdown: a placement still running
    // (and retrying) during the grace period keeps its connection pool.
    const supplierClient = new SupplierClient({
      baseUrl: config.supplier.baseUrl,
      environment: config.supplier.environment,
      timeoutMs: config.supplier.timeoutMs,
      retry: { maxAttempts: config.supplier.maxAttempts },
      logger,
    });
    cleanups.push(() => supplierClient.close());
    const supplier = meteredSupplier(supplierClient, metrics);

    const jobs = createJobs({ store, logger });
    await jobs.start();
    cleanups.push(() => jobs.stop({ graceMs: config.shutdownGraceMs }));

    const webhookSecrets = await webhookSecretsLoading;
    const botIdentity = await botIdentityCheck;
    // One pace per channel for every post of this process: order messages, replies and alerts.
    const pacer = new ChannelPacer();
    // One pace for reading conversations, within Slack's limits for apps outside its Marketplace.
    const history = new HistoryPace();
    const slack = createSlackApp({
      mode: config.slack.mode,
      botToken: config.slack.botToken,
      botIdentity,
      timeoutMs: config.slack.timeoutMs,
      customer,
      store,
      jobs,
      metrics,
      approvalMetrics: metrics.approvals,
      now,
      socket: { metrics },
      logger,
      pacer,
      history,
      ...(config.slack.appToken ? { appToken: config.slack.appToken } : {}),
      ...(config.slack.signingSecret ? { signingSecret: config.slack.signingSecret } : {}),
      ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
      register: (app, context) =>
        functions.register(app, context, { deadlineMs: config.workflowPlacementDeadlineMs }),
    });
    const alertAdmins = (alert: AdminAlert) => slack.notifier.alertAdmins(alert);
    workJobs({
      config,
      customer,
      store,
      jobs,
      supplier,
      apiKeys,
      slack,
      pacer,
      history,
      metrics,
      alertAdmins,
      now,
      logger,
    });

    const supplierSide = startSupplierSide({
      config,
      supplierEvents: customer.config.supplierEvents,
      mapper: eventMapper,
      store,
      jobs,
      getSecrets: webhookSecrets,
      alerts: slack.context.operators.alerts,
      alertAdmins,
      metrics,
      logger,
    });
    cleanups.push(() => supplierSide.sweeper.stop());

    const expiry = new ExpiryWatch({
      provider: apiKeys.provider,
      secretIds,
      logger,
      onWarning: (warning) =>
        alertAdmins({
          key: `expiry:${warning.secretId}:${warning.versionId}:${warning.thresholdDays}`,
          title: "The supplier API key expires soon",
          text: `${warning.message} (secret ${warning.secretId}, key ${warning.redactedKey}). Rotate it: docs/secrets.md.`,
        }),
    });
    cleanups.push(expiry.start());

    let accepting = false;
    const readiness = createReadiness({
      checks: {
        store: storeCheck(store),
        queue: () => jobs.stats().then(() => {}),
        supplierKey: keyCheck,
        // Socket Mode: Slack's requests reach this process only while a connection is open.
        ...(config.slack.mode === "socket" ? { slack: socketCheck(slack) } : {}),
      },
      accepting: () => accepting,
      logger,
    });
    // Metrics and readiness details on their own listener, loopback by default: the public port tells a load
    // balancer only "ready or not". Started first so that it is closed last (scrapes work while draining).
    const ops: HttpServer = await startHttpServer({
      host: config.ops.host,
      port: config.ops.port,
      logger: logger.child({ listener: "ops" }),
      routes: [...healthRoutes(readiness, { details: true }), metricsRoute({ metrics, jobs })],
    });
    cleanups.push(() => ops.close({ graceMs: 1_000 }));
    const http: HttpServer = await startHttpServer({
      host: config.http.host,
      port: config.http.port,
      logger,
      routes: [
        ...healthRoutes(readiness),
        supplierSide.route,
        ...(slack.requestListener
          ? [{ path: SLACK_EVENTS_PATH, methods: ["POST"], handler: slack.requestListener }]
          : []),
      ],
    });
    cleanups.push(() => http.close({ graceMs: 5_000 }));

    await slack.start();
    cleanups.push(() => slack.stop());
    accepting = true;
    // The first step of a shutdown: /readyz turns 503 and no new job is fetched; running ones finish later.
    cleanups.push(async () => {
      accepting = false;
      await jobs.pause();
    });
    logger.info(
      {
        ...buildInfo(),
        url: http.url,
        opsUrl: ops.url,
        slackMode: config.slack.mode,
        store: store.kind,
        supplier: redactUrl(config.supplier.baseUrl),
      },
      "Order Desk is running",
    );

    let stopping: Promise<void> | null = null;
    return {
      config,
      url: http.url,
      opsUrl: ops.url,
      store,
      jobs,
      slack,
      customer,
      metrics,
      stop() {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
