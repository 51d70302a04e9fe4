/**
 * The Bolt app: Socket Mode by default, or HTTP (`/slack/events`) for several replicas behind a load balancer.
 * In HTTP mode the app does not listen itself: the composition root mounts `requestListener` on the shared HTTP
 * server. In Socket Mode the connections to Slack are kept by `SlackSocketReceiver` (reconnects with backoff,
 * make-before-break on Slack's refresh). No conversation store (state lives in the database, so any replica can
 * serve any request), and every Web API call has a timeout and a short retry budget (a listener must answer
 * within Slack's 3 s); the socket's `apps.connections.open` has its own, unending, retry loop.
 */
import type { RequestListener } from "node:http";
import type { App } from "@slack/bolt";
import { type Logger, pino } from "pino";
import type { Customer } from "../config/catalog.ts";
import type { Jobs } from "../jobs/jobs.ts";
import type { Metrics } from "../metrics.ts";
import type { ApprovalDeps } from "../orders/approvals/decide.ts";
import type { ApprovalMetrics, ApprovalNotifier } from "../orders/approvals/ports.ts";
import { type Authorizer, createAuthorizer, type Membership } from "../orders/authorization.ts";
import { postUnsentAlerts, withAttention } from "../orders/operations/report.ts";
import type { OrderNotifier } from "../orders/ports.ts";
import type { SubmitDeps } from "../orders/submit.ts";
import { ChannelPacer } from "../orders/updates/pacer.ts";
import type { Store } from "../store/db.ts";
import { createSlackApprovalNotifier } from "./approvals-notifier.ts";
import { createSlackAttentionAlerts } from "./attention-alerts.ts";
import { BoltApp } from "./bolt.ts";
import type { SlackContext } from "./context.ts";
import { createHomeRefresher, type HomeRefresher } from "./home.ts";
import { registerListeners } from "./listeners/index.ts";
import { createMetadataSeal } from "./metadata.ts";
import { createSlackNotifier } from "./notifier.ts";
import {
  createSlackWebClient,
  type HistoryPace,
  slackClientOptions,
  slackSdkLogger,
  type WebClient,
} from "./outbound/index.ts";
import { SlackRequestReceiver } from "./receiver.ts";
import {
  SlackSocketReceiver,
  type SlackSocketReceiverOptions,
  type SocketStatus,
} from "./socket-receiver.ts";

export const SLACK_EVENTS_PATH = "/slack/events";
export const DEFAULT_SLACK_TIMEOUT_MS = 10_000;
/** Slack shows an error for a click not acked within 3 s; the decision before the ack gets 2 of them. */
export const DEFAULT_CLICK_DECISION_MS = 2_000;
/** How often admin alerts that did not go out are tried again. */
const UNSENT_ALERTS_EVERY_MS = 60_000;

export interface CreateSlackAppOptions {
  mode: "socket" | "http";
  botToken: string;
  /**
   * The bot's ids from an `auth.test` the caller already made. Without them Bolt calls `auth.test` itself in
   * its constructor, where a failure cannot be caught and ends the process.
   */
  botIdentity?: { botUserId: string; botId: string };
  /** Socket Mode: the app-level token (xapp-…). */
  appToken?: string;
  /** HTTP mode: verifies Slack's request signatures. */
  signingSecret?: string;
  /** The fake Slack in tests and the demo. */
  slackApiUrl?: string;
  /** Per Web API call (default 10 s). */
  timeoutMs?: number;

  customer: Customer;
  store: Store;
  jobs: Pick<Jobs, "send" | "settleFailed">;
  /** Default: group membership looked up with `usergroups.users.list`, cached 5 minutes. */
  authorizer?: Authorizer & Membership;
  /** Counts approvals requested and decided (src/metrics.ts). */
  approvalMetrics?: ApprovalMetrics;
  logger?: Logger;
  now?: () => Date;
  newOrderId?: () => string;
  /** The bound on deciding a state-changing click before its ack (default 2 s, well inside Slack's 3 s). */
  clickDecisionMs?: number;
  /** More listeners (the Workflow Builder step), registered after ours with the same context. */
  register?: (app: App, ctx: SlackContext) => void;
  /** Counts the notifier's posts, updates and 429s (`slackPosts`, `slackRateLimited`). */
  metrics?: Pick<Metrics, "slackPosts" | "slackRateLimited">;
  /** App Home refreshes after an order changed, per user, are coalesced within this window (default 1 s). */
  homeDebounceMs?: number;
  /** How often admin alerts not posted when reported are looked for, and how old they must be (1 min, 1 min). */
  unsentAlerts?: { everyMs?: number; graceMs?: number };
  /** The per-channel posting pace the notifier keeps; give the post-update worker the same one. */
  pacer?: ChannelPacer;
  /** The pace of history reads (finding a message after a crash); give the post-update worker the same one. */
  history?: HistoryPace;
  /** Socket Mode: its metrics, and the reconnect backoff, hello deadline and drain time (defaults suit Slack). */
  socket?: Pick<
    SlackSocketReceiverOptions,
    "metrics" | "reconnect" | "helloTimeoutMs" | "retireAfterMs" | "drainMs" | "pingTimeoutMs"
  >;
}

export interface SlackApp {
  app: App;
  /** The bot's Web API client (timeouts and retries set). */
  client: WebClient;
  /** HTTP mode: mount on the shared server at `SLACK_EVENTS_PATH`. Null in Socket Mode. */
  requestListener: RequestListener | null;
  receiver: SlackRequestReceiver | null;
  /** Socket Mode: whether a connection to Slack is open (for `/readyz`). Null in HTTP mode. */
  socketStatus(): SocketStatus | null;
  /** Give this to `placeOrderJob`. */
  notifier: OrderNotifier;
  /** Give this to the approval jobs (`workApprovals`), with `context.approvals`. */
  approvals: ApprovalNotifier;
  /** Re-publishes a requester's App Home after their order changed (the post-update worker's `onOrderChanged`). */
  home: HomeRefresher;
  context: SlackContext;
  /** Socket Mode: connects. HTTP mode: nothing to do (the shared server listens). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createSlackApp(options: CreateSlackAppOptions): SlackApp {
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "slack" });
  const slackLogger = slackSdkLogger(logger);
  const timeoutMs = options.timeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS;
  // Bolt's client serves the listeners, which have Slack's 3 s: the `interactive` policy.
  const clientOptions = slackClientOptions({ policy: "interactive", timeoutMs, apiUrl: options.slackApiUrl });

  let receiver: SlackRequestReceiver | null = null;
  let socket: SlackSocketReceiver | null = null;
  let app: App;
  if (options.mode === "http") {
    if (!options.signingSecret)
      throw new TypeError("HTTP mode needs the signing secret (SLACK_SIGNING_SECRET)");
    // Acks as soon as the listener calls ack(); slow work continues after the response.
    receiver = new SlackRequestReceiver({ signingSecret: options.signingSecret, logger: slackLogger });
    app = new BoltApp({
      token: options.botToken,
      receiver,
      convoStore: false,
      ...options.botIdentity,
      clientOptions,
      logger: slackLogger,
    });
  } else {
    if (!options.appToken) throw new TypeError("Socket Mode needs the app-level token (SLACK_APP_TOKEN)");
    // Not Bolt's default receiver: given the app's clientOptions (two retries), its client ended the process
    // when apps.connections.open failed three times in a row, and it reconnected 5 s after closing.
    socket = new SlackSocketReceiver({
      appToken: options.appToken,
      sdkLogger: slackLogger,
      logger: options.logger ?? pino({ level: "silent" }),
      clientOptions: { timeoutMs, ...(options.slackApiUrl ? { apiUrl: options.slackApiUrl } : {}) },
      ...options.socket,
    });
    app = new BoltApp({
      token: options.botToken,
      socketMode: true,
      receiver: socket,
      convoStore: false,
      ...options.botIdentity,
      clientOptions,
      logger: slackLogger,
    });
  }

  const client = app.client;
  const now = options.now ?? (() => new Date());
  const authorizer =
    options.authorizer ??
    createAuthorizer({
      logger,
      groupMembers: async (usergroup) => (await client.usergroups.users.list({ usergroup })).users ?? [],
    });
  const storing = {
    store: options.store,
    jobs: options.jobs,
    customer: options.customer,
    logger,
    ...(options.newOrderId ? { newOrderId: options.newOrderId } : {}),
  };
  // Each submit is stored in a transaction of its own before the modal closes (docs/benchmarks.md, slack-ack-open).
  const orders: SubmitDeps = { ...storing, authorizer, now };
  const approvals: ApprovalDeps = {
    store: options.store,
    jobs: options.jobs,
    customer: options.customer,
    membership: authorizer,
    now,
    logger,
    ...(options.approvalMetrics ? { metrics: options.approvalMetrics } : {}),
  };
  // Notifier and admin alerts share one client that never re-sends on its own: an SDK retry of a chat.postMessage
  // whose answer was lost would post twice. The jobs retry instead, after looking for the message
  // (src/orders/show-order.ts). The `background` policy: a 429 comes back as an error the notifier waits out and
  // retries itself (Slack did not take the call).
  const outboundClient = createSlackWebClient({
    token: options.botToken,
    policy: "background",
    timeoutMs,
    apiUrl: options.slackApiUrl,
    logger: slackLogger,
  });
  // One pace for the admin channel's alerts of both kinds, and for the order messages.
  const pacer = options.pacer ?? new ChannelPacer();
  const attentionAlerts = createSlackAttentionAlerts({
    client: outboundClient,
    adminChannel: options.customer.config.adminChannel,
    metrics: options.metrics,
    pacer,
    history: options.history,
  });
  const context: SlackContext = {
    customer: options.customer,
    store: options.store,
    orders,
    approvals,
    logger,
    now,
    clickDecisionMs: options.clickDecisionMs ?? DEFAULT_CLICK_DECISION_MS,
    timeZone: options.customer.timeZone,
    // Keyed from the bot token: a secret every replica holds, never sent to Slack's clients.
    metadata: createMetadataSeal(options.botToken),
    operators: {
      membership: authorizer,
      deps: { store: options.store, jobs: options.jobs, now },
      alerts: attentionAlerts,
    },
  };
  registerListeners(app, context);
  options.register?.(app, context);
  app.error(async (error) => {
    logger.error({ err: error }, "unhandled error in a Slack listener");
  });

  // Alerts an admin can act on (a subject) open an attention item and carry its buttons (src/orders/operations/).
  const notifier = withAttention(
    createSlackNotifier({
      client: outboundClient,
      customer: options.customer,
      adminChannel: options.customer.config.adminChannel,
      logger,
      now,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      pacer,
      ...(options.history ? { history: options.history } : {}),
    }),
    { store: options.store, alerts: attentionAlerts },
  );
  const home = createHomeRefresher({
    store: options.store,
    now: context.now,
    operators: context.operators,
    customer: options.customer,
    client,
    approvals,
    logger,
    ...(options.homeDebounceMs !== undefined ? { debounceMs: options.homeDebounceMs } : {}),
  });

  let unsentAlerts: NodeJS.Timeout | null = null;
  return {
    app,
    client,
    receiver,
    requestListener: receiver?.requestListener ?? null,
    socketStatus: () => socket?.status() ?? null,
    notifier,
    // The approvers' DMs: the same never-re-sending client (the approval jobs retry).
    approvals: createSlackApprovalNotifier({
      client: outboundClient,
      customer: options.customer,
      metrics: options.metrics,
      history: options.history,
      logger,
    }),
    home,
    context,
    async start() {
      // Alerts that did not go out when reported (Slack down, the admin channel archived) are posted later.
      unsentAlerts ??= setInterval(() => {
        postUnsentAlerts(
          { store: options.store, alerts: attentionAlerts },
          {
            ...(options.unsentAlerts?.graceMs !== undefined && { graceMs: options.unsentAlerts.graceMs }),
            onError: (err, item) => logger.warn({ err, itemId: item.id }, "admin alert not posted"),
          },
        ).catch((err: unknown) => logger.warn({ err }, "could not look for admin alerts not posted"));
      }, options.unsentAlerts?.everyMs ?? UNSENT_ALERTS_EVERY_MS).unref();
      if (options.mode === "socket") await app.start();
    },
    async stop() {
      if (unsentAlerts) clearInterval(unsentAlerts);
      unsentAlerts = null;
      home.stop();
      if (options.mode === "socket") await app.stop();
    },
  };
}
