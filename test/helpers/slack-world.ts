/**
 * The Slack side of the app assembled piece by piece for the Slack and workflow tests (test/slack/support/
 * harness.ts, test/workflow/support/harness.ts). Not `startWorld` (tools/world.ts), which starts the whole app
 * as main.ts does: these tests inject what the whole app keeps to itself (the clock, the supplier's URL, often a
 * scripted stub, job policies with retries in seconds, which queues are worked) and read the store directly;
 * everything between the parts still goes over the real wire (signed requests or Socket Mode, the fake Slack Web
 * API, HTTP to the supplier).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Customer, createCustomer } from "../../src/config/catalog.ts";
import { type CustomerConfig, parseCustomerConfig } from "../../src/config/customer.ts";
import { createJobs, type JobHandler, type Jobs, type PlaceOrderJobData } from "../../src/jobs/index.ts";
import { workApprovals } from "../../src/orders/approvals/jobs.ts";
import { workBudgetAlerts } from "../../src/orders/budget/alert-job.ts";
import { workAlertRewrites } from "../../src/orders/operations/outcome-job.ts";
import { type PlacementHandlers, placeOrderJob } from "../../src/orders/place.ts";
import { workPlacement } from "../../src/orders/placement-queues.ts";
import { showOrder } from "../../src/orders/show-order.ts";
import { tellPlacedAtRisk } from "../../src/orders/updates/placed-at-risk.ts";
import { createPostUpdateWorker } from "../../src/orders/updates/post-update.ts";
import type { PostUpdateWorker } from "../../src/orders/updates/post-update-deps.ts";
import { EnvKeyProvider } from "../../src/secrets/env-provider.ts";
import {
  type CreateSlackAppOptions,
  createSlackApp,
  SLACK_EVENTS_PATH,
  type SlackApp,
} from "../../src/slack/app.ts";
import { updatePresenter } from "../../src/slack/blocks/updates/presenter.ts";
import { createSlackChat } from "../../src/slack/outbound/index.ts";
import type { Store } from "../../src/store/db.ts";
import { SupplierClient, type SupplierClientOptions } from "../../src/supplier/client.ts";
import { attachOrphanEvents } from "../../src/webhooks/orphans.ts";
import {
  type ChannelInput,
  type FakeSlack,
  type FakeUser,
  type FakeUsergroup,
  type SocketModeOptions,
  startFakeSlack,
} from "../../tools/fake-slack/index.ts";
import { fakeSlackToken } from "../../tools/fake-tokens.ts";
import { createSlackRequests, type SlackRequests } from "../../tools/slack-requests.ts";
import { createSocketModeRequests } from "../../tools/socket-mode-requests.ts";
// A store per world: the same file runs worlds of both transports, and a worker of one would take the other's jobs.
import { openTestStore } from "./db.ts";

/** A helpdesk channel the bot was never invited to (added to the example's first profile). */
export const NO_BOT = "C0NOBOT";

/** The example customer file, with `NO_BOT` among the first profile's channels and without its budget. */
export function exampleConfig(): CustomerConfig {
  const config = parseCustomerConfig(
    readFileSync(new URL("../../examples/order-desk.config.yml", import.meta.url), "utf8"),
  );
  config.profiles[0]!.channels.push(NO_BOT);
  // The example's budget would add alerts and thread lines to every flow that orders enough; a test of budgets
  // sets its own.
  for (const profile of config.profiles) delete profile.budget;
  return config;
}

type PlaceOrderHandler = JobHandler<PlaceOrderJobData>;

/** How Slack reaches the app: signed HTTP requests, or envelopes over a Socket Mode WebSocket. */
export type Transport = "http" | "socket";
/** The Slack flows run over both (`describe.each(TRANSPORTS)`). */
export const TRANSPORTS: readonly Transport[] = ["http", "socket"];

export interface SlackWorldOptions {
  /** Default HTTP. */
  transport?: Transport;
  botToken: string;
  signingSecret: string;
  users: FakeUser[];
  channels: ChannelInput[];
  usergroups?: FakeUsergroup[];
  supplierUrl: string;
  apiKey: string;
  supplierRetry: NonNullable<SupplierClientOptions["retry"]>;
  placeOrderPolicy: { retryDelaySeconds: number; retryLimit: number };
  register?: CreateSlackAppOptions["register"];
  /** The notifier's Prometheus counters (default none). */
  metrics?: CreateSlackAppOptions["metrics"];
  /** Socket Mode: the receiver's metrics, backoff, deadlines (createSlackApp's `socket`). */
  socket?: CreateSlackAppOptions["socket"];
  /** Scopes the fake grants the bot token (default: the manifest's). */
  scopes?: readonly string[];
  /** The fake's Socket Mode: ack deadline, retries, pings. */
  fakeSocketMode?: Omit<SocketModeOptions, "appToken">;
  /** Per Slack Web API call (default 5 s). */
  slackTimeoutMs?: number;
  /** The Slack app's logger (default silent), e.g. the app's own `createLogger` at debug level. */
  logger?: CreateSlackAppOptions["logger"];
  /** The customer file (default: the example's, see `exampleConfig`). */
  config?: CustomerConfig;
  /** More for the approval jobs (the workflow step's functions). */
  approvalExtras?: (parts: { store: Store; jobs: Jobs; slack: SlackApp; fake: FakeSlack }) => {
    workflowFunctions?: import("../../src/orders/workflow/ports.ts").WorkflowFunctions;
  };
  /** Counts approvals (src/metrics-approvals.ts). */
  approvalMetrics?: CreateSlackAppOptions["approvalMetrics"];
  /** The bound on deciding a state-changing click before its ack (the app's default 2 s). */
  clickDecisionMs?: number;
  /** The app's clock (default the real one): approvals' reminders and expiries are due by it. */
  now?: () => Date;
  /** The app's look for admin alerts not posted when reported (createSlackApp's `unsentAlerts`). */
  unsentAlerts?: CreateSlackAppOptions["unsentAlerts"];
  /** How long a budget alert's thread line waits for the order's message (the app's default 10 min). */
  budgetThreadWaitMs?: number;
  /** Retries of the approval jobs (default 1 s apart, 3 times). */
  approvalPolicy?: { retryDelaySeconds: number; retryLimit: number };
  /** Changes to the example customer file before the app starts (e.g. `admins`). */
  customize?: (config: CustomerConfig) => void;
  /**
   * Runs the post-update worker on its queue, with admin alerts, as main.ts does (default: not on a queue, a test
   * runs `postOrderUpdates` itself).
   */
  workPostUpdates?: boolean;
  /** Wraps the placement handlers before they are registered (the workflow step's `withWorkflowSteps`). */
  wrapPlaceOrder?: (
    handlers: PlacementHandlers,
    parts: { store: Store; jobs: Jobs; slack: SlackApp; fake: FakeSlack; now: () => Date },
  ) => Parameters<typeof workPlacement>[1];
}

export interface SlackWorld {
  transport: Transport;
  fake: FakeSlack;
  /** The app-level token the fake accepts (Socket Mode). */
  appToken: string;
  store: Store;
  jobs: Jobs;
  slack: SlackApp;
  customer: Customer;
  requests: SlackRequests;
  /** The app's clock: `now` (or the real clock), moved on by `clockReaches`. */
  now(): Date;
  /**
   * Moves the app's clock on to `at` when it is behind it, running on from there: a delayed job's time has come by
   * the app's clock too (test/slack/support/approvals.ts `runWhenDue`). Never moves it back.
   */
  clockReaches(at: Date): void;
  /** The handler the place-order jobs run (to replay a stale job in a test). */
  placeOrderHandler: PlaceOrderHandler;
  /**
   * The post-update worker wired as main.ts wires it (threaded replies, the status line, App Home refreshed
   * through `onOrderChanged`); not on a queue: a test runs `postOrderUpdates(orderId)` after storing events.
   */
  postUpdates: PostUpdateWorker;
  close(): Promise<void>;
}

export async function startSlackWorld(options: SlackWorldOptions): Promise<SlackWorld> {
  const transport = options.transport ?? "http";
  // A store per world: the same scenarios run once per transport in one file, each from an empty database.
  const store = await openTestStore();
  const config = options.config ?? exampleConfig();
  options.customize?.(config);
  const customer = createCustomer(config);
  const appToken = fakeSlackToken("xapp");
  const clock = options.now ?? (() => new Date());
  let movedOnMs = 0;
  const now = () => new Date(clock().getTime() + movedOnMs);
  const fake = await startFakeSlack({
    botToken: options.botToken,
    users: options.users,
    channels: options.channels,
    ...(options.usergroups && { usergroups: options.usergroups }),
    ...(options.scopes && { scopes: options.scopes }),
    socketMode: { ...options.fakeSocketMode, appToken },
  });
  const jobs = createJobs({
    store,
    pollIntervalMs: 100,
    policies: {
      "place-order": { ...options.placeOrderPolicy, retryBackoff: false },
      // Placement's other kinds had place-order's queue, and so its policy, before they had their own.
      "show-order": { ...options.placeOrderPolicy, retryBackoff: false },
      "workflow-deadline": { ...options.placeOrderPolicy, retryBackoff: false },
      ...Object.fromEntries(
        [
          "approval-request",
          "approval-decision",
          "approval-reminder",
          "approval-expiry",
          "attention-outcome",
          "budget-alert",
        ].map((q) => [
          q,
          { retryDelaySeconds: 1, retryLimit: 3, ...options.approvalPolicy, retryBackoff: false },
        ]),
      ),
    },
  });
  await jobs.start();
  const slack = createSlackApp({
    ...(transport === "http"
      ? { mode: "http", signingSecret: options.signingSecret }
      : { mode: "socket", appToken }),
    botToken: options.botToken,
    slackApiUrl: fake.apiUrl,
    timeoutMs: options.slackTimeoutMs ?? 5000,
    customer,
    store,
    jobs,
    // App Home refreshes follow supplier events within 50 ms instead of production's second.
    homeDebounceMs: 50,
    ...(options.register && { register: options.register }),
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.socket && { socket: options.socket }),
    ...(options.logger && { logger: options.logger }),
    now,
    ...(options.approvalMetrics && { approvalMetrics: options.approvalMetrics }),
    ...(options.clickDecisionMs !== undefined && { clickDecisionMs: options.clickDecisionMs }),
    ...(options.unsentAlerts && { unsentAlerts: options.unsentAlerts }),
  });
  // As main.ts: an admin alert is rewritten by a job of the action's transaction.
  workAlertRewrites(jobs, { store, alerts: slack.context.operators.alerts });
  const supplier = new SupplierClient({
    baseUrl: options.supplierUrl,
    environment: "test",
    retry: options.supplierRetry,
    timeoutMs: 5000,
  });
  const placeOrder = placeOrderJob({
    store,
    customer,
    supplier,
    apiKeys: new EnvKeyProvider({ value: options.apiKey, production: false }),
    defaultSecretId: "SUPPLIER_API_KEY",
    notifier: slack.notifier,
    jobs,
    showAgainAfterMs: 300,
    now,
    // As main.ts wires it: events that beat the placement's answer are attached once it is recorded.
    onPlaced: async (order) => {
      if (order.correlationId) await attachOrphanEvents({ store, jobs }, order.id, order.correlationId);
      await tellPlacedAtRisk({ store, jobs }, order);
    },
  });
  const placement = options.wrapPlaceOrder?.(placeOrder, { store, jobs, slack, fake, now }) ?? placeOrder;
  const placeOrderHandler = placement.placeOrder;
  workPlacement(jobs, placement, { concurrency: 4 });
  // As main.ts wires them (the workflow step's functions are added by a test that needs them).
  workApprovals(jobs, {
    ...slack.context.approvals,
    notifier: slack.notifier,
    approvals: slack.approvals,
    onOrderChanged: (order) => slack.home.orderChanged(order),
    onApproversChanged: (userIds) => slack.home.usersChanged(userIds),
    ...options.approvalExtras?.({ store, jobs, slack, fake }),
  });
  // As main.ts: budget alerts (80 % / 100 % of a month, an order placed over budget).
  workBudgetAlerts(jobs, {
    store,
    notifier: slack.notifier,
    chat: createSlackChat({ token: options.botToken, apiUrl: fake.apiUrl, timeoutMs: 5000 }),
    locale: customer.config.locale,
    now,
    ...(options.budgetThreadWaitMs !== undefined && { threadWaitMs: options.budgetThreadWaitMs }),
  });
  const postUpdates = createPostUpdateWorker({
    store,
    slack: createSlackChat({ token: options.botToken, apiUrl: fake.apiUrl, timeoutMs: 5000 }),
    // The app's clock and the customer's zone, as main.ts (src/job-workers.ts) gives them.
    present: updatePresenter({ customer, clock: now }),
    now,
    timeZone: customer.timeZone,
    showMissingMessage: (order, signal) =>
      showOrder(store, slack.notifier, order, { kind: "placed" }, { retryDelayMs: 50, signal }),
    missingMessageAfterMs: 0,
    onOrderChanged: (order) => slack.home.orderChanged(order),
    ...(options.workPostUpdates && { alertAdmins: (alert) => slack.notifier.alertAdmins(alert) }),
  });
  if (options.workPostUpdates) jobs.work("post-update", postUpdates.handler, { concurrency: 2 });

  let server: Server | null = null;
  let requests: SlackRequests;
  if (transport === "socket") {
    await slack.start();
    requests = createSocketModeRequests({
      socketMode: fake.socketMode,
      teamId: fake.teamId,
      appId: fake.appId,
    });
  } else {
    const http = createServer((req, res) => {
      if (req.url?.startsWith(SLACK_EVENTS_PATH) && slack.requestListener)
        return slack.requestListener(req, res);
      res.writeHead(404).end();
    });
    server = http;
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    requests = createSlackRequests({
      url: `http://127.0.0.1:${(http.address() as AddressInfo).port}${SLACK_EVENTS_PATH}`,
      signingSecret: options.signingSecret,
      teamId: fake.teamId,
      appId: fake.appId,
    });
  }

  return {
    transport,
    fake,
    appToken,
    store,
    jobs,
    slack,
    customer,
    requests,
    now,
    clockReaches(at) {
      movedOnMs += Math.max(0, at.getTime() - now().getTime());
    },
    placeOrderHandler,
    postUpdates,
    async close() {
      await slack.stop();
      await jobs.stop({ graceMs: 1000 });
      await supplier.close();
      if (server) {
        const http = server;
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
      }
      await fake.close();
    },
  };
}
