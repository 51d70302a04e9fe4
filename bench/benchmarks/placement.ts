/**
 * (issue 10) End-to-end latency of the two flows users feel, through our real app (`order-desk start` in its
 * own process, Slack in HTTP mode):
 *
 * - submit → supplier: a valid `view_submission` is sent, signed as Slack signs it; the clock stops when the
 *   supplier has the create-order request. In between: the ack path (rules, authorization, the order and its
 *   job in one transaction), the queue pick-up, the order's "placing" message in Slack, the API key, the
 *   client. Baseline: the same supplier called directly with `SupplierClient.createOrder` from this process.
 * - webhook → thread: a signed `order.status_changed` is POSTed for a placed order; the clock stops when fake
 *   Slack receives the threaded reply. The app's settle delay (WEBHOOK_SETTLE_MS, default 500 ms, for reordered
 *   deliveries) is part of it, as deployed. Events are sent more than 1 s apart, within Slack's pace of one
 *   message per second per channel. Baseline: a direct `chat.postMessage` to the same fake Slack.
 *
 * One request at a time, so each figure is the latency of an idle system, not queueing. The fake Slack and
 * the timestamping supplier run in this process, which is idle while it waits.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Webhook } from "standardwebhooks";
import { Agent, request } from "undici";
import { VARIABLES } from "../../src/config.ts";
import { FIELD_BLOCK } from "../../src/slack/blocks/ids.ts";
import { SupplierClient } from "../../src/supplier/client.ts";
import { generateWebhookSecret } from "../../src/supplier/webhook-signature.ts";
import { type FakeSlack, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { BENCH_TEST_KEY, benchOrder } from "../lib/fixtures.ts";
import { BOT_TOKEN, SIGNING_SECRET, type StoreTarget, startOrderDeskProcess } from "../lib/order-desk.ts";
import {
  cloneSubmission,
  HELPDESK,
  IT_ADMIN,
  letterPrefix,
  signedInteraction,
  validSubmission,
} from "../lib/slack-form.ts";
import { type LatencySummary, summarize } from "../lib/stats.ts";
import { startTimestampSupplier, type TimestampSupplier } from "../lib/timestamp-supplier.ts";
import type { BenchContext, Benchmark, Measured } from "../lib/types.ts";

const SETTLE_MS = Number(VARIABLES.WEBHOOK_SETTLE_MS.default);

const DIRECT_CLIENT = "direct SupplierClient call";
const DIRECT_POST = "direct chat.postMessage";
/**
 * Slack's pace is about one message per second per channel, and Order Desk keeps to it for every post: the
 * submissions (each posts its order message) and the events go slower than that.
 */
const EVENT_SPACING_MS = 1100;

function placementRows(prefix: string, store: string): Benchmark["rows"] {
  return [
    {
      id: `${prefix}place-p50`,
      metric: `submit → supplier p50 (${store})`,
      unit: "ms",
      baselineLabel: DIRECT_CLIENT,
      bounds: [{ on: "value", op: "<=", value: 300 }],
    },
    {
      id: `${prefix}place-p99`,
      metric: `submit → supplier p99 (${store})`,
      unit: "ms",
      baselineLabel: DIRECT_CLIENT,
      bounds: [],
    },
    {
      id: `${prefix}thread-p50`,
      metric: `webhook → threaded reply p50 (${store})`,
      unit: "ms",
      baselineLabel: DIRECT_POST,
      bounds: [{ on: "value", op: "<=", value: 1000 }],
    },
  ];
}

export const benchmark: Benchmark = {
  name: "placement",
  description:
    "view_submission → supplier receives (p50/p99) and webhook → threaded reply (p50), `order-desk start`, PGlite and PostgreSQL",
  requires: ["src/main.ts", "bin/order-desk.js", "tools/fake-slack/index.ts"],
  rows: [...placementRows("pglite-", "PGlite"), ...placementRows("pg-", "PostgreSQL")],
  async run(ctx) {
    const dir = await mkdtemp(join(tmpdir(), "order-desk-bench-"));
    const results: Record<string, Measured> = {};
    try {
      ctx.log("  PGlite (on disk)");
      Object.assign(
        results,
        await measureOn(ctx, { dataDir: join(dir, "data") }, "pglite-", "PGlite on disk"),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    if (ctx.databaseUrl === null) {
      const skipped = "needs PostgreSQL: pass --database-url or set DATABASE_URL";
      for (const row of placementRows("pg-", "PostgreSQL")) {
        results[row.id] = { ours: null, baseline: null, skipped };
      }
      return results;
    }
    ctx.log("  PostgreSQL");
    Object.assign(
      results,
      await ctx.withDatabase((url) => measureOn(ctx, { databaseUrl: url }, "pg-", "PostgreSQL")),
    );
    return results;
  },
};

interface Placed {
  ticket: string;
  correlationId: string;
  /** The order's message in the helpdesk channel, which its updates thread under. */
  messageTs: string;
}

interface PlacementSamples {
  total: number[];
  ack: number[];
  /** Submit → the "placing" message reaching Slack (posted by the job before it calls the supplier). */
  message: number[];
  placed: Placed[];
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

async function measureOn(
  ctx: BenchContext,
  store: StoreTarget,
  prefix: string,
  storeLabel: string,
): Promise<Record<string, Measured>> {
  const quick = ctx.durations.measureSeconds < 2;
  const samples = quick ? 5 : 40;
  const warmup = quick ? 2 : 8;
  const events = quick ? 3 : 12;
  const fake = await startFakeSlack({
    botToken: BOT_TOKEN,
    channels: [
      { id: HELPDESK, name: "helpdesk" },
      { id: IT_ADMIN, name: "it-admin" },
    ],
  });
  const supplier = await startTimestampSupplier();
  const webhookSecret = generateWebhookSecret();
  // The app's log of the last run, for a diagnosis (bench/.tmp is not committed).
  const logFile = join(ctx.root, "bench", ".tmp", `placement-${prefix}app.log`);
  await mkdir(dirname(logFile), { recursive: true });
  await rm(logFile, { force: true });
  try {
    const desk = await startOrderDeskProcess(ctx, {
      store,
      slackApiUrl: fake.apiUrl,
      supplierBaseUrl: supplier.url,
      webhookSecret,
      logFile,
    });
    let placement: PlacementSamples;
    let thread: number[];
    try {
      const eventsUrl = new URL("/slack/events", desk.url).toString();
      const payload = await validSubmission(fake, { signingSecret: SIGNING_SECRET, eventsUrl });
      const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
      try {
        ctx.log(`  ${samples} submissions, one at a time, ${EVENT_SPACING_MS} ms apart`);
        const driver = submissionDriver(fake, supplier, dispatcher, eventsUrl, JSON.stringify(payload));
        await driver.run(warmup);
        placement = await driver.run(samples);
        ctx.log(`  ${events} webhook events, ${EVENT_SPACING_MS} ms apart`);
        thread = await measureThreads(
          fake,
          dispatcher,
          desk.url,
          webhookSecret,
          placement.placed.slice(0, events),
        );
      } finally {
        await dispatcher.close();
      }
    } finally {
      await desk.stop();
    }
    const direct = await directClientLatency(supplier, samples);
    const directPost = await directPostLatency(fake, Math.max(events, 10));

    const total = summarize(placement.total);
    const ack = summarize(placement.ack);
    const message = summarize(placement.message);
    const threaded = summarize(thread);
    const placeNote =
      `${storeLabel}; ${placement.total.length} submissions one at a time (${EVENT_SPACING_MS} ms apart) after ${warmup} warm-up; ` +
      `of the p50: Slack's ack ${fmt(ack.p50)} ms, the "placing" message in Slack ${fmt(message.p50)} ms ` +
      `after the submit, the supplier ${fmt(total.p50)} ms; direct client p99 ${fmt(direct.p99)} ms`;
    const threadNote =
      `${storeLabel}; ${thread.length} events, WEBHOOK_SETTLE_MS at its default (${SETTLE_MS} ms): ` +
      `${fmt(threaded.p50 - SETTLE_MS)} ms beyond the settle delay at p50; p99 ${fmt(threaded.p99)} ms`;
    return {
      [`${prefix}place-p50`]: { ours: total.p50, baseline: direct.p50, note: placeNote },
      [`${prefix}place-p99`]: { ours: total.p99, baseline: direct.p99 },
      [`${prefix}thread-p50`]: { ours: threaded.p50, baseline: summarize(directPost).p50, note: threadNote },
    };
  } finally {
    await supplier.close();
    await fake.close();
  }
}

/**
 * Sends submissions one at a time, at most one per `EVENT_SPACING_MS` (their order messages share one channel's
 * pace); each one waits until its order is placed and shown before the next.
 */
function submissionDriver(
  fake: FakeSlack,
  supplier: TimestampSupplier,
  dispatcher: Agent,
  eventsUrl: string,
  template: string,
) {
  const prefix = letterPrefix();
  let sequence = 0;
  return {
    async run(count: number): Promise<PlacementSamples> {
      const out: PlacementSamples = { total: [], ack: [], message: [], placed: [] };
      let lastSent = 0;
      for (let i = 0; i < count; i++) {
        const wait = lastSent + EVENT_SPACING_MS - performance.now();
        if (wait > 0) await sleep(wait);
        sequence += 1;
        const ticket = `P${prefix}-${sequence}`;
        const submission = cloneSubmission(template, FIELD_BLOCK.ticket, `V${prefix}${sequence}`, ticket);
        const signed = signedInteraction(submission, SIGNING_SECRET);
        const updatesBefore = fake.calls("chat.update").length;
        const arrived = supplier.arrival(ticket);
        const posted = fake.waitFor(
          () =>
            fake
              .calls("chat.postMessage")
              .find((c) => c.args.channel === HELPDESK && JSON.stringify(c.args).includes(ticket)),
          { timeoutMs: 30_000, what: `the order message of ${ticket}` },
        );
        const messageAt = posted.then(() => performance.now());
        const t0 = performance.now();
        lastSent = t0;
        const response = await request(eventsUrl, {
          method: "POST",
          dispatcher,
          headers: signed.headers,
          body: signed.body,
        });
        const answer = await response.body.text();
        const ackMs = performance.now() - t0;
        if (response.statusCode !== 200 || answer.length > 0) {
          throw new Error(`submission ${ticket} was not simply acked: HTTP ${response.statusCode} ${answer}`);
        }
        const arrival = await arrived;
        out.total.push(arrival.at - t0);
        out.ack.push(ackMs);
        out.message.push((await messageAt) - t0);
        const message = await posted;
        const messageTs = String((message.response as { ts?: unknown } | undefined)?.ts ?? "");
        // Placed and shown (the message turns from "placing" to "placed") before the next submission.
        await fake.waitFor(() => fake.calls("chat.update").length > updatesBefore, {
          timeoutMs: 30_000,
          what: `the placed update of ${ticket}`,
        });
        out.placed.push({ ticket, correlationId: arrival.correlationId, messageTs });
      }
      return out;
    },
  };
}

/** One `order.status_changed` per placed order; the time until its reply lands in the order's thread. */
async function measureThreads(
  fake: FakeSlack,
  dispatcher: Agent,
  deskUrl: string,
  secret: string,
  orders: Placed[],
): Promise<number[]> {
  const signer = new Webhook(secret);
  const url = new URL("/webhooks/supplier", deskUrl).toString();
  const latencies: number[] = [];
  let lastSent = 0;
  for (const [i, order] of orders.entries()) {
    const wait = lastSent + EVENT_SPACING_MS - performance.now();
    if (wait > 0) await sleep(wait);
    const id = `evt_bench_${order.ticket}_${i}`;
    const now = new Date();
    const body = JSON.stringify({
      id,
      type: "order.status_changed",
      occurredAt: now.toISOString(),
      correlationId: order.correlationId,
      // A milestone (the order placed): the example customer file threads milestones only.
      data: { status: "received" },
    });
    const replied = fake.waitFor(
      () =>
        fake
          .calls("chat.postMessage")
          .some((c) => c.args.thread_ts === order.messageTs && c.httpStatus === 200) && performance.now(),
      { timeoutMs: 30_000, what: `the threaded reply to ${order.ticket}` },
    );
    const t0 = performance.now();
    lastSent = t0;
    const response = await request(url, {
      method: "POST",
      dispatcher,
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signer.sign(id, now, body),
      },
      body,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) {
      throw new Error(`the webhook for ${order.ticket} was answered HTTP ${response.statusCode}: ${text}`);
    }
    latencies.push((await replied) - t0);
  }
  return latencies;
}

/** The floor of submit → supplier: our client calling the same supplier from this process, warmed up. */
async function directClientLatency(supplier: TimestampSupplier, count: number): Promise<LatencySummary> {
  const client = new SupplierClient({ baseUrl: supplier.url, environment: "test" });
  const latencies: number[] = [];
  try {
    for (let i = -5; i < count; i++) {
      const order = benchOrder(`DIRECT-${i + 5}`);
      order.customerReference = `DIRECT-${i + 5}`;
      const t0 = performance.now();
      await client.createOrder(order, { apiKey: BENCH_TEST_KEY });
      const arrival = await supplier.arrival(order.customerReference);
      if (i >= 0) latencies.push(arrival.at - t0);
    }
  } finally {
    await client.close();
  }
  return summarize(latencies);
}

/** The floor of webhook → thread: a reply posted straight to the same fake Slack. */
async function directPostLatency(fake: FakeSlack, count: number): Promise<number[]> {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  try {
    for (let i = -3; i < count; i++) {
      const text = `direct reply ${i}`;
      const seen = fake.waitFor(
        () => fake.calls("chat.postMessage").some((c) => c.args.text === text) && performance.now(),
        { timeoutMs: 10_000, what: "the direct reply" },
      );
      const t0 = performance.now();
      const response = await request(new URL("chat.postMessage", fake.apiUrl), {
        method: "POST",
        dispatcher,
        headers: { "content-type": "application/json; charset=utf-8", authorization: `Bearer ${BOT_TOKEN}` },
        body: JSON.stringify({ channel: HELPDESK, text }),
      });
      await response.body.text();
      const at = await seen;
      if (i >= 0) latencies.push(at - t0);
    }
  } finally {
    await dispatcher.close();
  }
  return latencies;
}
