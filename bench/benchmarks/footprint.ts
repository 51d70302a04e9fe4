/**
 * (issue 10) Memory and start-up of the whole app as users run it (`node bin/order-desk.js start`, Slack in HTTP
 * mode against a fake Slack), on PGlite and PostgreSQL:
 *
 * - start-up: from the spawn until `/readyz` answers 200 (store open, migrations checked, queues created, HTTP
 *   listening), on a fresh data directory / empty database (first start: creates and migrates it) and on a warm
 *   one (the median of three restarts). Baseline: Node with tsx loading a bare node:http server, polled the same
 *   way.
 * - RSS idle: a warm-started process once it has been quiet for a moment, and the first start's process the
 *   same way (what a first start grows, e.g. PGlite's WebAssembly heap, is never given back); RSS under load:
 *   the peak while autocannon sends signed webhooks (16 connections, unknown correlation ids, so events are
 *   stored as orphans and no Slack posting follows). Baseline: the bare verify + INSERT webhook server on the
 *   same kind of store, idle and under the same load — what the store and Node cost before our app adds
 *   anything.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { builtAndFresh } from "../../bin/build-state.js";
import { generateWebhookSecret } from "../../src/supplier/webhook-signature.ts";
import { type FakeSlack, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { type ServerHandle, waitForQuiet } from "../lib/child.ts";
import { describeLoad } from "../lib/compare.ts";
import { BOT_TOKEN, freePort, type StoreTarget, startOrderDeskProcess } from "../lib/order-desk.ts";
import type { Bound } from "../lib/report.ts";
import { combineLoad } from "../lib/rounds.ts";
import { HELPDESK, IT_ADMIN } from "../lib/slack-form.ts";
import { median } from "../lib/stats.ts";
import type { BenchContext, Benchmark, Measured } from "../lib/types.ts";

const BARE_NODE = "bare node + tsx HTTP server";
const BARE_WEBHOOK = "bare verify + INSERT server, same store";
const CONNECTIONS = 16;
const PATH = "/webhooks/supplier";
const WARM_STARTS = 3;

/** The targets: PostgreSQL's from the first footprint issue, the embedded store's from "starts in about a second". */
const TARGETS = {
  pg: { idleMb: 150, freshStartMs: null, warmStartMs: 2000 },
  pglite: { idleMb: 200, freshStartMs: 1500, warmStartMs: 1000 },
} as const;

function rowsFor(prefix: string, store: string, fresh: string, warm: string): Benchmark["rows"] {
  const target = prefix === "pg-" ? TARGETS.pg : TARGETS.pglite;
  const atMost = (value: number | null): Bound[] =>
    value === null ? [] : [{ on: "value", op: "<=", value }];
  return [
    {
      id: `${prefix}idle`,
      metric: `RSS idle (${store})`,
      unit: "MB",
      baselineLabel: BARE_WEBHOOK,
      bounds: atMost(target.idleMb),
    },
    {
      id: `${prefix}fresh-idle`,
      metric: `RSS idle after a first start (${store})`,
      unit: "MB",
      baselineLabel: BARE_WEBHOOK,
      bounds: atMost(target.idleMb),
    },
    {
      id: `${prefix}load`,
      metric: `RSS under ingest load (${store})`,
      unit: "MB",
      baselineLabel: BARE_WEBHOOK,
      bounds: [],
    },
    {
      id: `${prefix}fresh-start`,
      metric: `start-up, ${fresh} (${store})`,
      unit: "ms",
      baselineLabel: BARE_NODE,
      bounds: atMost(target.freshStartMs),
    },
    {
      id: `${prefix}start`,
      metric: `start-up, ${warm} (${store})`,
      unit: "ms",
      baselineLabel: BARE_NODE,
      bounds: atMost(target.warmStartMs),
    },
  ];
}

const ROWS = [
  ...rowsFor("pglite-", "PGlite", "fresh data dir", "warm data dir"),
  ...rowsFor("pg-", "PostgreSQL", "empty database", "migrated database"),
];

export const benchmark: Benchmark = {
  name: "footprint",
  description: "RSS idle / under ingest load and start-up to /readyz (fresh and warm), `order-desk start`",
  requires: ["src/main.ts", "bin/order-desk.js", "tools/fake-slack/index.ts"],
  rows: ROWS,
  async run(ctx) {
    if (!builtAndFresh()) {
      // Through tsx the same app measured ≈ 70–80 MB and ≈ 0.4 s more (docs/benchmarks.md): not what users run.
      const reason =
        "dist/ is missing or older than src/, so `order-desk` would run the sources through tsx: run `npm run build` first";
      return Object.fromEntries(ROWS.map((row) => [row.id, { ours: null, baseline: null, skipped: reason }]));
    }
    const fake = await startFakeSlack({
      botToken: BOT_TOKEN,
      channels: [
        { id: HELPDESK, name: "helpdesk" },
        { id: IT_ADMIN, name: "it-admin" },
      ],
    });
    const results: Record<string, Measured> = {};
    try {
      const bare = await bareNode(ctx);
      ctx.log(`  bare node + tsx: start-up ${bare.startMs.toFixed(0)} ms, RSS ${bare.rssMb.toFixed(0)} MB`);
      const dir = await mkdtemp(join(tmpdir(), "order-desk-bench-"));
      try {
        ctx.log("  PGlite (on disk)");
        Object.assign(
          results,
          await measureOn(ctx, fake, bare, "pglite-", "PGlite on disk", {
            ours: { dataDir: join(dir, "ours") },
            baseline: { dataDir: join(dir, "baseline") },
          }),
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
      if (ctx.databaseUrl === null) {
        const skipped = "needs PostgreSQL: pass --database-url or set DATABASE_URL";
        for (const row of rowsFor("pg-", "", "", ""))
          results[row.id] = { ours: null, baseline: null, skipped };
        return results;
      }
      ctx.log("  PostgreSQL");
      Object.assign(
        results,
        await ctx.withDatabase((oursUrl) =>
          ctx.withDatabase((baselineUrl) =>
            measureOn(ctx, fake, bare, "pg-", "PostgreSQL", {
              ours: { databaseUrl: oursUrl },
              baseline: { databaseUrl: baselineUrl },
            }),
          ),
        ),
      );
      return results;
    } finally {
      await fake.close();
    }
  },
};

/** Start-up (median of three) and idle RSS of Node + tsx with a bare HTTP server. */
async function bareNode(ctx: BenchContext): Promise<{ startMs: number; rssMb: number }> {
  const starts: number[] = [];
  let rss = Number.NaN;
  for (let i = 0; i < WARM_STARTS; i++) {
    const port = await freePort();
    const server = await ctx.startServer(
      "bench/servers/bare-http.ts",
      { port },
      {
        readyUrl: `http://127.0.0.1:${port}/`,
      },
    );
    starts.push(server.startMs);
    if (i === WARM_STARTS - 1) rss = await idleRss(server);
    await server.stop();
  }
  return { startMs: median(starts), rssMb: rss };
}

/** RSS once the process has been quiet for a moment: the median of a few samples over a second. */
async function idleRss(server: ServerHandle): Promise<number> {
  await sleep(1000);
  await waitForQuiet([server.pid], 10_000);
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(server.rssMb());
    await sleep(250);
  }
  return median(samples);
}

/** Peak RSS of `server` while `load` runs. */
async function peakRssDuring<T>(
  server: ServerHandle,
  load: () => Promise<T>,
): Promise<{ peak: number; result: T }> {
  let peak = server.rssMb();
  const sampler = setInterval(() => {
    peak = Math.max(peak, server.rssMb());
  }, 200);
  try {
    const result = await load();
    return { peak: Math.max(peak, server.rssMb()), result };
  } finally {
    clearInterval(sampler);
  }
}

async function measureOn(
  ctx: BenchContext,
  fake: FakeSlack,
  bare: { startMs: number; rssMb: number },
  prefix: string,
  storeLabel: string,
  stores: { ours: StoreTarget; baseline: StoreTarget },
): Promise<Record<string, Measured>> {
  const secret = generateWebhookSecret();
  const start = () =>
    startOrderDeskProcess(ctx, {
      store: stores.ours,
      slackApiUrl: fake.apiUrl,
      // Never called: no order is placed here.
      supplierBaseUrl: "http://127.0.0.1:9/",
      webhookSecret: secret,
    });
  const loadOn = (server: ServerHandle) => () =>
    ctx.runLoad({
      url: new URL(PATH, server.url).toString(),
      connections: CONNECTIONS,
      scenario: "webhook",
      options: { secret, path: PATH, correlationIds: [] },
    });

  const first = await start();
  const freshMs = first.startMs;
  let firstIdle: number;
  try {
    firstIdle = await idleRss(first);
  } finally {
    await first.stop();
  }
  const warm: number[] = [];
  let ours: ServerHandle | undefined;
  let oursIdle: number;
  let oursLoad: { peak: number; result: Awaited<ReturnType<BenchContext["runLoad"]>> };
  try {
    for (let i = 0; i < WARM_STARTS; i++) {
      ours = await start();
      warm.push(ours.startMs);
      if (i < WARM_STARTS - 1) {
        await ours.stop();
        ours = undefined;
      }
    }
    ctx.log(
      `  start-up: fresh ${freshMs.toFixed(0)} ms (idle ${firstIdle.toFixed(0)} MB), warm ${warm.map((ms) => ms.toFixed(0)).join(" / ")} ms`,
    );
    const running = ours as ServerHandle;
    oursIdle = await idleRss(running);
    ctx.log(`  ours idle ${oursIdle.toFixed(0)} MB; ingest load`);
    oursLoad = await peakRssDuring(running, loadOn(running));
  } finally {
    await ours?.stop();
  }

  // Started once to create its store, then measured on the warm store, as ours is.
  await (await ctx.startServer("bench/servers/bare-webhook.ts", { secret, ...stores.baseline })).stop();
  const baseline = await ctx.startServer("bench/servers/bare-webhook.ts", { secret, ...stores.baseline });
  let baseIdle: number;
  let baseLoad: typeof oursLoad;
  try {
    baseIdle = await idleRss(baseline);
    ctx.log(`  bare webhook server idle ${baseIdle.toFixed(0)} MB; ingest load`);
    baseLoad = await peakRssDuring(baseline, loadOn(baseline));
  } finally {
    await baseline.stop();
  }

  const ingest = combineLoad([oursLoad.result]);
  const ingestBase = combineLoad([baseLoad.result]);
  const loadNote =
    `${CONNECTIONS} connections for ${ctx.durations.measureSeconds} s after ${ctx.durations.warmupSeconds} s of warm-up, ` +
    `peak RSS; ${Math.round(ingest.rate).toLocaleString("en-US")} events/s (${describeLoad("ours", ingest)}), ` +
    `bare ${Math.round(ingestBase.rate).toLocaleString("en-US")} events/s (${describeLoad("bare", ingestBase)})`;
  return {
    [`${prefix}idle`]: {
      ours: oursIdle,
      baseline: baseIdle,
      note: `${storeLabel}; bare node + tsx HTTP server alone: ${bare.rssMb.toFixed(0)} MB`,
    },
    [`${prefix}fresh-idle`]: {
      ours: firstIdle,
      baseline: baseIdle,
      note: `${storeLabel}; the first start's process (it created the store), measured as the warm one is`,
    },
    [`${prefix}load`]: { ours: oursLoad.peak, baseline: baseLoad.peak, note: loadNote },
    [`${prefix}fresh-start`]: { ours: freshMs, baseline: bare.startMs },
    [`${prefix}start`]: {
      ours: median(warm),
      baseline: bare.startMs,
      note: `spawn → /readyz 200, median of ${WARM_STARTS} restarts (${warm.map((ms) => ms.toFixed(0)).join(", ")} ms)`,
    },
  };
}
