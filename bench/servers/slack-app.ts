/**
 * Our Slack app in HTTP mode, wired as in production: the example customer file, the real store (PGlite on
 * disk or PostgreSQL), pg-boss jobs, `createSlackApp` mounted on the app's HTTP server at `/slack/*`, Web API
 * calls going to a fake Slack. No place-order worker: the slack-ack benchmark measures the listener up to and
 * including its ack (and the work that follows it in this process, like the "placing order…" message), while
 * placement jobs stay queued.
 *
 * Until the composition root (src/main.ts) lands this is the wiring of test/slack/support/harness.ts; once it
 * does, the benchmark should start `order-desk start` instead.
 */
import { readFileSync } from "node:fs";
import { pino } from "pino";
import { createCustomer } from "../../src/config/catalog.ts";
import { parseCustomerConfig } from "../../src/config/customer.ts";
import { startHttpServer } from "../../src/http/server.ts";
import { createJobs } from "../../src/jobs/index.ts";
import { emptyDraft } from "../../src/orders/draft.ts";
import { submitOrder } from "../../src/orders/submit.ts";
import { createSlackApp, SLACK_EVENTS_PATH } from "../../src/slack/app.ts";
import { openStore } from "../../src/store/db.ts";
import { announceReady, closeOnSignal, readChildConfig } from "../lib/ipc.ts";

export interface SlackAppConfig {
  botToken: string;
  signingSecret: string;
  slackApiUrl: string;
  databaseUrl?: string;
  dataDir?: string;
  /**
   * The approve-ack benchmark: "Acme EU" needs the approval of `U0MANAGER` for every order, and one order waits
   * for it when the server announces itself (its id in the ready line, `orderId`).
   */
  approvals?: boolean;
}

const config = readChildConfig<SlackAppConfig>();
const logger = pino({ level: "warn" });
const store = await openStore(
  config.databaseUrl
    ? { databaseUrl: config.databaseUrl, logger }
    : { dataDir: config.dataDir ?? "memory://", logger },
);
const jobs = createJobs({ store, logger });
await jobs.start();
const customerConfig = parseCustomerConfig(readFileSync("examples/order-desk.config.yml", "utf8"));
if (config.approvals) {
  customerConfig.profiles[0]!.approval = {
    approvers: ["U0MANAGER"],
    approverGroups: [],
    when: [{ always: true }],
    remindAfterHours: 24,
    expireAfterDays: 7,
  };
}
const customer = createCustomer(customerConfig);
const slack = createSlackApp({
  mode: "http",
  botToken: config.botToken,
  signingSecret: config.signingSecret,
  slackApiUrl: config.slackApiUrl,
  customer,
  store,
  jobs,
  logger,
});
const listener = slack.requestListener;
if (listener === null) throw new Error("HTTP mode gave no request listener");
const http = await startHttpServer({
  host: "127.0.0.1",
  port: 0,
  logger,
  routes: [{ path: "/slack/*", methods: ["POST"], handler: (req, res) => listener(req, res) }],
});
let orderId: string | undefined;
if (config.approvals) {
  const waiting = await submitOrder(
    slack.context.orders,
    {
      ...emptyDraft("Acme EU", "APPROVE-1"),
      firstName: "Nina",
      lastName: "Newhire",
      email: "nina@example.com",
      phone: "+31 20 555 0101",
      deliveryAt: "Home",
      address1: "Keizersgracht 1",
      city: "Amsterdam",
      zip: "1015 CJ",
      country: "NL",
      lines: [{ itemNumber: "LAP-14-PRO", quantity: "1", comment: "" }],
    },
    { source: "command", requestedBy: "U0AGENT01", idempotencyKey: "bench:approve", channelId: "C0HELPDESK" },
  );
  if (waiting.status !== "queued") throw new Error(`the order to approve was not stored: ${waiting.status}`);
  orderId = waiting.order.id;
}
announceReady({ url: http.url, path: SLACK_EVENTS_PATH, ...(orderId ? { orderId } : {}) });
closeOnSignal(async () => {
  await http.close({ graceMs: 1000 });
  await jobs.stop({ graceMs: 1000 });
  await store.close();
});
