/**
 * The webhook side of the app, assembled as main.ts does (HTTP server with health and the webhook route, the
 * store, the job queue with the post-update worker, the orphan sweeper) against the fake Slack, for tests.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { createCustomer } from "../../src/config/catalog.ts";
import { loadCustomerConfig } from "../../src/config/customer.ts";
import { healthRoutes, storeCheck } from "../../src/http/health.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { createJobs, type Jobs } from "../../src/jobs/index.ts";
import { QUEUES } from "../../src/jobs/queues.ts";
import type { Order } from "../../src/orders/model/order.ts";
import type { AdminAlert } from "../../src/orders/ports.ts";
import type { SlackChat } from "../../src/orders/updates/chat-port.ts";
import { postUpdateJobId } from "../../src/orders/updates/enqueue.ts";
import { ChannelPacer } from "../../src/orders/updates/pacer.ts";
import { workPostUpdates } from "../../src/orders/updates/post-update.ts";
import type { PostUpdateDeps, PostUpdateWorker } from "../../src/orders/updates/post-update-deps.ts";
import { createSlackAttentionAlerts } from "../../src/slack/attention-alerts.ts";
import { updatePresenter } from "../../src/slack/blocks/updates/presenter.ts";
import { renderAdminAlert } from "../../src/slack/notifier.ts";
import { createSlackChat, createSlackWebClient } from "../../src/slack/outbound/index.ts";
import type { Store } from "../../src/store/db.ts";
import { insertEventIfNew } from "../../src/store/repositories/events.ts";
import { getOrder, insertOrder, markPlaced, setOriginMessage } from "../../src/store/repositories/orders.ts";
import { signWebhook } from "../../src/supplier/webhook-signature.ts";
import { createOrphanSweeper, type OrphanSweeper } from "../../src/webhooks/orphans.ts";
import { type WebhookReceiverOptions, webhookRoute } from "../../src/webhooks/receiver.ts";
import { validOrder } from "../../tools/example-order.ts";
import { type FakeSlack, startFakeSlack } from "../../tools/fake-slack/index.ts";

export const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
export const OLD_SECRET = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;
export const ORDERS_CHANNEL = "C0ORDERS1";
export const ADMIN_CHANNEL = "C0ITADMIN";
/** The clock of rendered dates: Tue 24 Nov 2026, 10:00 UTC. */
export const NOW = new Date("2026-11-24T10:00:00Z");

export interface Harness {
  store: Store;
  jobs: Jobs;
  fake: FakeSlack;
  slack: SlackChat;
  http: HttpServer;
  url: string;
  worker: PostUpdateWorker;
  sweeper: OrphanSweeper;
  alerts: AdminAlert[];
  present: PostUpdateDeps["present"];
  close(): Promise<void>;
}

export interface HarnessOptions {
  settleMs?: number;
  pacer?: ChannelPacer;
  secrets?: () => readonly string[] | Promise<readonly string[]>;
  receiver?: Partial<WebhookReceiverOptions>;
  orphanAfterMs?: number;
  fakeSlack?: Parameters<typeof startFakeSlack>[0]["channelPace"];
  /** Bot scopes of the fake Slack (default: the manifest's). */
  scopes?: readonly string[];
  /** The HTTP server's logger, which the webhook route logs through (default silent). */
  logger?: Logger;
  /** What threads show (default: every event, the worker's default). */
  updates?: PostUpdateDeps["updates"];
  broadcast?: PostUpdateDeps["broadcast"];
  /** Alerts with buttons (attention items) for unreadable deliveries, posted to the admin channel. */
  attentionAlerts?: boolean;
  /** What main.ts counts as the worker tells date notices and records deliveries (metrics-dates.ts). */
  counting?: Pick<PostUpdateDeps, "onDateNotice" | "onDelivered">;
  /** The app's clock (default: fixed at `NOW`). */
  now?: () => Date;
}

export async function startHarness(store: Store, options: HarnessOptions = {}): Promise<Harness> {
  const customer = createCustomer(await loadCustomerConfig("examples/order-desk.config.yml"));
  const fake = await startFakeSlack({
    botToken: "xoxb-webhook",
    channels: [
      { id: ORDERS_CHANNEL, name: "it-orders" },
      { id: ADMIN_CHANNEL, name: "it-admin" },
    ],
    ...(options.fakeSlack && { channelPace: options.fakeSlack }),
    ...(options.scopes && { scopes: options.scopes }),
  });
  const slack = createSlackChat({ token: fake.botToken, apiUrl: fake.apiUrl, timeoutMs: 5000 });
  const jobs = createJobs({
    store,
    pollIntervalMs: 100,
    policies: {
      "post-update": { retryLimit: 5, retryDelaySeconds: 1, retryBackoff: false, expireInSeconds: 30 },
    },
  });
  await jobs.start();
  const alerts: AdminAlert[] = [];
  const alertAdmins = async (alert: AdminAlert) => {
    alerts.push(alert);
    await slack.postMessage({ channel: ADMIN_CHANNEL, ...renderAdminAlert(alert) });
  };
  const present = updatePresenter({ customer, now: NOW });
  const worker = workPostUpdates(jobs, {
    store,
    slack,
    present,
    alertAdmins,
    pacer: options.pacer ?? new ChannelPacer({ perSecond: 50, burst: 50 }),
    settleMs: options.settleMs ?? 0,
    now: options.now ?? (() => NOW),
    ...(options.updates && { updates: options.updates }),
    ...(options.broadcast && { broadcast: options.broadcast }),
    ...options.counting,
  });
  const sweeper = createOrphanSweeper({
    store,
    jobs,
    orphanAfterMs: options.orphanAfterMs ?? 60_000,
    alertAdmins,
  });
  const http = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    ...(options.logger && { logger: options.logger }),
    routes: [
      ...healthRoutes({ checks: { store: storeCheck(store) } }),
      webhookRoute({
        store,
        jobs,
        getSecrets: options.secrets ?? (() => [SECRET]),
        settleMs: options.settleMs ?? 0,
        ...(options.attentionAlerts && {
          alerts: createSlackAttentionAlerts({
            client: createSlackWebClient({
              token: fake.botToken,
              apiUrl: fake.apiUrl,
              timeoutMs: 5000,
              policy: "background",
            }),
            adminChannel: ADMIN_CHANNEL,
          }),
        }),
        ...options.receiver,
      }),
    ],
  });
  return {
    store,
    jobs,
    fake,
    slack,
    http,
    url: `${http.url}/webhooks/supplier`,
    worker,
    sweeper,
    alerts,
    present,
    async close() {
      await http.close({ graceMs: 1000 });
      await sweeper.stop();
      await jobs.stop({ graceMs: 2000 });
      await fake.close();
    },
  };
}

export interface TestOrder {
  order: Order;
  orderId: string;
  correlationId: string;
  ts: string;
}

/** An order placed from Slack: its message in the channel, its correlation id recorded (unless `placed: false`). */
export async function placeOrder(
  h: Harness,
  options: { placed?: boolean; channel?: string } = {},
): Promise<TestOrder> {
  const orderId = randomUUID();
  const correlationId = randomUUID();
  const edn = `OD-${orderId.slice(0, 8)}`;
  const { order } = await insertOrder(h.store, {
    id: orderId,
    profile: "default",
    externalDocumentNumber: edn,
    customerReference: "TICKET-123",
    requestedBy: "U0AGENT01",
    source: "command",
    status: "placing",
    request: validOrder({ externalDocumentNumber: edn }),
  });
  const channel = options.channel ?? ORDERS_CHANNEL;
  const parent = h.present.parent(order);
  const { ts } = await h.slack.postMessage({
    channel,
    text: parent?.text ?? "order",
    blocks: parent?.blocks ?? [],
  });
  await setOriginMessage(h.store, orderId, { channelId: channel, messageTs: ts });
  if (options.placed !== false) await markPlaced(h.store, orderId, { correlationId, placedEarlier: false });
  const placed = await getOrder(h.store, orderId);
  return { order: placed ?? order, orderId, correlationId, ts };
}

let seq = 0;

export function statusEvent(correlationId: string, status: string, occurredAt: string, extra: object = {}) {
  return {
    id: `evt_${++seq}_${randomUUID().slice(0, 8)}`,
    type: "order.status_changed",
    occurredAt,
    correlationId,
    data: { status },
    ...extra,
  };
}

/** Stores an event as the receiver does for one its order's pending job already covers: no job of its own. */
export async function storeEventWithoutJob(
  store: Store,
  event: { id: string; correlationId: string; type: string; occurredAt: string },
): Promise<void> {
  await insertEventIfNew(store, {
    id: event.id,
    correlationId: event.correlationId,
    type: event.type,
    occurredAt: event.occurredAt,
    payload: event,
  });
}

export function shippingEvent(correlationId: string, occurredAt: string, data: object = {}) {
  return {
    id: `evt_${++seq}_${randomUUID().slice(0, 8)}`,
    type: "order.shipping_updated",
    occurredAt,
    correlationId,
    data: {
      parcel: { number: 1, of: 1 },
      carrier: "DHL",
      trackingNumber: "JD014600003SE",
      trackingUrl: "https://track.example.com/JD014600003SE",
      estimatedDelivery: "2026-11-26",
      status: "shipped",
      lines: [{ itemNumber: "LAPTOP-14", quantity: 1 }],
      ...data,
    },
  };
}

export interface SendOptions {
  secret?: string | readonly string[];
  /** Unix seconds (default now). */
  timestamp?: number;
  id?: string;
  headers?: Record<string, string>;
  omit?: string[];
}

/** POSTs a signed delivery of `event` (an object, or raw text sent as is). */
export async function deliver(
  url: string,
  event: object | string,
  options: SendOptions = {},
): Promise<Response> {
  const body = typeof event === "string" ? event : JSON.stringify(event);
  const id = options.id ?? (typeof event === "object" && "id" in event ? String(event.id) : "msg_raw");
  const signed = signWebhook({
    id,
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
    body,
    secret: options.secret ?? SECRET,
  });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...signed,
    ...options.headers,
  };
  for (const name of options.omit ?? []) delete headers[name];
  return fetch(url, { method: "POST", headers, body });
}

export async function until<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() - started > timeoutMs)
      throw new Error(`${what}: not reached in ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Waits until the post-update job of each event has completed: the run that posted it is over. A reply shows in
 * the thread, and its event is marked posted, before the rest of that run (the date notices, the requester's DM,
 * what they count, the status line), so what a test asserts about those must wait for this. (When another job of
 * the order posted the event, that run ended before this one started: one poster per order at a time.) Each event
 * needs a job of its own, as every event has at the harness's default settle delay (0): with a longer one, an
 * event that arrives while its order's job waits to start has none.
 */
export async function runsDone(h: Pick<Harness, "jobs">, events: readonly { id: string }[]): Promise<void> {
  await until(
    () =>
      Promise.all(
        events.map(async (e) => (await h.jobs.getJob(QUEUES.postUpdate, postUpdateJobId(e.id)))?.state),
      ),
    (states) => states.every((state) => state === "completed"),
    `the post-update runs of ${events.length} event(s) done`,
  );
}
