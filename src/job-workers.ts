/**
 * The composition root's job workers (main.ts): each durable queue's handler, built with its dependencies and
 * registered on the queue. Every worker reads the one app clock it is given. No business rule lives here.
 */
import type { Logger } from "pino";
import type { Customer } from "./config/catalog.ts";
import type { Config } from "./config.ts";
import type { Jobs } from "./jobs/index.ts";
import type { Metrics } from "./metrics.ts";
import { placementMetrics } from "./metrics.ts";
import { countDateNotice, countDelivery } from "./metrics-dates.ts";
import type { MeteredSupplier } from "./metrics-supplier.ts";
import { workApprovals } from "./orders/approvals/jobs.ts";
import { workBudgetAlerts } from "./orders/budget/alert-job.ts";
import { workAlertRewrites } from "./orders/operations/outcome-job.ts";
import { placeOrderJob } from "./orders/place.ts";
import { workPlacement } from "./orders/placement-queues.ts";
import type { AdminAlert } from "./orders/ports.ts";
import { showOrder } from "./orders/show-order.ts";
import type { ChannelPacer } from "./orders/updates/pacer.ts";
import { tellPlacedAtRisk } from "./orders/updates/placed-at-risk.ts";
import { workPostUpdates } from "./orders/updates/post-update.ts";
import { updatesFor } from "./orders/updates/verbosity.ts";
import { watchdogRulesOf } from "./orders/watchdog/decide.ts";
import { checkAfterEvents, workWatchdog } from "./orders/watchdog/jobs.ts";
import { withWorkflowSteps } from "./orders/workflow/index.ts";
import type { ConfiguredApiKeyProvider } from "./secrets/factory.ts";
import type { SlackApp } from "./slack/app.ts";
import { updatePresenter } from "./slack/blocks/updates/presenter.ts";
import { createSlackChat, createSlackWorkflowFunctions, type HistoryPace } from "./slack/outbound/index.ts";
import type { Store } from "./store/db.ts";
import { attachOrphanEvents } from "./webhooks/orphans.ts";

export interface JobWorkersDeps {
  config: Config;
  customer: Customer;
  store: Store;
  jobs: Jobs;
  supplier: MeteredSupplier;
  apiKeys: ConfiguredApiKeyProvider;
  slack: SlackApp;
  /** The pace of this process's posts and reads (shared with the Slack app's notifier). */
  pacer: ChannelPacer;
  history: HistoryPace;
  metrics: Metrics;
  alertAdmins: (alert: AdminAlert) => Promise<void>;
  /** The app's clock (StartOptions.now). */
  now: () => Date;
  logger: Logger;
}

/** Registers every queue's worker; they run once `jobs` is started (it is already). */
export function workJobs(deps: JobWorkersDeps): void {
  const { config, customer, store, jobs, slack, metrics, now, logger } = deps;
  const orphanDeps = { store, jobs, settleMs: config.webhooks.settleMs };
  const slackApi = {
    token: config.slack.botToken,
    timeoutMs: config.slack.timeoutMs,
    logger,
    ...(config.slack.apiUrl ? { apiUrl: config.slack.apiUrl } : {}),
  };
  // Threads' own client: a 429 re-schedules the job after Retry-After instead of blocking a worker.
  const threadChat = createSlackChat({ ...slackApi, history: deps.history });
  // Stalled orders: a check when an order is placed and after its supplier events, each due at its deadline.
  const watchdog = workWatchdog(jobs, {
    store,
    jobs,
    rules: watchdogRulesOf(customer.config),
    chat: threadChat,
    alerts: slack.context.operators.alerts,
    metrics: { stalled: (profile, condition) => metrics.ordersStalled.inc({ profile, condition }) },
    now,
    logger,
  });
  const placeOrder = placeOrderJob({
    store,
    customer,
    supplier: deps.supplier,
    apiKeys: deps.apiKeys.provider,
    defaultSecretId: deps.apiKeys.secretId,
    notifier: slack.notifier,
    jobs,
    metrics: placementMetrics(metrics),
    now,
    logger,
    onPlaced: async (order) => {
      if (order.correlationId) await attachOrphanEvents(orphanDeps, order.id, order.correlationId);
      await Promise.all([watchdog.arm(order), tellPlacedAtRisk({ store, jobs }, order)]);
    },
  });
  // Orders from a Workflow Builder step complete (or fail) their step when placement ends.
  const workflowFunctions = createSlackWorkflowFunctions(slackApi);
  workPlacement(
    jobs,
    withWorkflowSteps(placeOrder, {
      store,
      jobs,
      notifier: slack.notifier,
      functions: workflowFunctions,
      // The step's deadline was set by the app's clock when it started: checked by the same clock.
      now,
      logger,
    }),
    { concurrency: 4 },
  );
  // Orders that need approval: the approvers' DMs, the decision shown, the reminder and the expiry.
  workApprovals(jobs, {
    ...slack.context.approvals,
    notifier: slack.notifier,
    approvals: slack.approvals,
    workflowFunctions,
    onOrderChanged: (order) => slack.home.orderChanged(order),
    onApproversChanged: (userIds) => slack.home.usersChanged(userIds),
  });
  // An admin alert is rewritten by a job of the admin's action (who did what), so a crash cannot skip it.
  workAlertRewrites(jobs, { store, alerts: slack.context.operators.alerts, logger });
  // A profile's month reaching 80 % / 100 % of its budget, an order placed over it (src/orders/budget/).
  workBudgetAlerts(jobs, {
    store,
    notifier: slack.notifier,
    chat: threadChat,
    locale: customer.config.locale,
    now,
    logger,
  });
  workPostUpdates(jobs, {
    store,
    slack: threadChat,
    settleMs: config.webhooks.settleMs,
    // The app's clock, as everywhere else: replies and the status line say "in 2 days" from its today.
    present: updatePresenter({ customer, clock: now }),
    showMissingMessage: (order, signal) =>
      showOrder(store, slack.notifier, order, { kind: "placed" }, { signal }),
    alertAdmins: deps.alertAdmins,
    pacer: deps.pacer,
    broadcast: customer.config.broadcast,
    updates: (order) => updatesFor(customer.config, order.profile),
    metrics,
    now,
    timeZone: customer.timeZone,
    onDateNotice: (order, notice) => countDateNotice(metrics.dates, order, notice),
    onDelivered: (order) => countDelivery(metrics.dates, order),
    // App Home follows the order's latest supplier event (debounced per user; failures only logged).
    onOrderChanged: (order) => slack.home.orderChanged(order),
    afterEvents: (orderId, newestEventId) => checkAfterEvents(jobs, orderId, newestEventId),
    logger,
  });
}
