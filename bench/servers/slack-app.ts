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
import { createSlackApp, SLACK_EVENTS_PATH } from "../../src/slack/app.ts";
import { openStore } from "../../src/store/db.ts";
import { announceReady, closeOnSignal, readChildConfig } from "../lib/ipc.ts";

export interface SlackAppConfig {
  botToken: string;
  signingSecret: string;
  slackApiUrl: string;
  databaseUrl?: string;
  dataDir?: string;
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
const customer = createCustomer(parseCustomerConfig(readFileSync("examples/order-desk.config.yml", "utf8")));
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
announceReady({ url: http.url, path: SLACK_EVENTS_PATH });
closeOnSignal(async () => {
  await http.close({ graceMs: 1000 });
  await jobs.stop({ graceMs: 1000 });
  await store.close();
});
