/**
 * Unauthenticated load against the whole app as users run it (`node bin/order-desk.js start`, PGlite on disk,
 * Slack in HTTP mode against a fake Slack), for the docs' promise that a caller without credentials is refused
 * cheaply:
 *
 * - baseline rounds: 8 clients each send 25 signed webhook events a second (200/s, unknown correlation ids, so
 *   each is stored as an orphan), while one client asks `/healthz` 50 times a second;
 * - attack rounds: the same, plus 16 clients each sending 25 unsigned requests a second (400/s) with one header of
 *   15,000 characters (`bench/scenarios/refused-webhook.ts`).
 *
 * Targets: `/healthz` p99 under attack within 2× its p99 without (+ 20 ms), and the signed traffic keeps ≥ 80 % of
 * its rate. Rounds alternate (baseline, attack, …), 10 s each after a 2 s warm-up. Beside them, the log filter on
 * its own (`bench/workers/scrub.ts`): a megabyte of adversarial text must cost the CPU what ten texts of 100 KB
 * cost, not ten times that.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { generateWebhookSecret } from "../../src/supplier/webhook-signature.ts";
import { startFakeSlack } from "../../tools/fake-slack/index.ts";
import { type ServerHandle, waitForQuiet } from "../lib/child.ts";
import { startOrderDeskProcess } from "../lib/order-desk.ts";
import { combineLoad } from "../lib/rounds.ts";
import { HELPDESK, IT_ADMIN } from "../lib/slack-form.ts";
import type { BenchContext, Benchmark, Measured } from "../lib/types.ts";
import type { LoadResult } from "../workers/load.ts";
import type { ScrubResult } from "../workers/scrub.ts";

const PATH = "/webhooks/supplier";
const SIGNED = { connections: 8, perSecond: 25 };
const REFUSED = { connections: 16, perSecond: 25 };
const HEALTH = { connections: 1, perSecond: 50 };
const ALONE = "signed traffic alone";

const offered = (load: { connections: number; perSecond: number }) => load.connections * load.perSecond;

export const benchmark: Benchmark = {
  name: "hostile",
  description:
    "/healthz and signed webhooks while 400 unsigned req/s with 15,000-char headers are refused; log filter scaling",
  requires: ["src/main.ts", "bin/order-desk.js", "src/webhooks/receiver.ts", "src/log.ts"],
  rows: [
    {
      id: "healthz-p99",
      metric: `/healthz p99 under ${offered(REFUSED)} refused req/s (15,000-char headers)`,
      unit: "ms",
      baselineLabel: ALONE,
      bounds: [{ on: "ratio", op: "<=", value: 2, plus: 20 }],
    },
    {
      id: "signed-rate",
      metric: `signed events kept under attack (${offered(SIGNED)}/s offered)`,
      unit: "events/s",
      baselineLabel: ALONE,
      bounds: [{ on: "ratio", op: ">=", value: 0.8 }],
    },
    {
      id: "refused-rate",
      metric: "unsigned requests refused",
      unit: "req/s",
      baselineLabel: "offered",
      bounds: [{ on: "ratio", op: ">=", value: 0.9 }],
    },
    {
      id: "scrub-scaling",
      metric: "log filter, 1 MB of adversarial text (CPU)",
      unit: "ms",
      baselineLabel: "10 texts of 100 KB",
      bounds: [{ on: "ratio", op: "<=", value: 2 }],
    },
    {
      id: "log-line",
      metric: "log line holding a 15,000-char header (CPU)",
      unit: "µs",
      baselineLabel: "same line, short header",
      bounds: [{ on: "value", op: "<=", value: 1000 }],
    },
  ],
  async run(ctx) {
    const quick = ctx.durations.measureSeconds < 2;
    const scrub = await ctx.runWorker<ScrubResult>("bench/workers/scrub.ts", {
      repeats: quick ? 3 : 9,
      lines: quick ? 20 : 200,
    });
    ctx.log(
      `  log filter (CPU time): 10 × 100 KB ${scrub.tenSmallMs.toFixed(1)} ms, 1 MB ${scrub.largeMs.toFixed(1)} ms; ` +
        `a line with a 15,000-char header ${scrub.longLineUs.toFixed(0)} µs (short header ${scrub.shortLineUs.toFixed(0)} µs)`,
    );
    const results: Record<string, Measured> = {
      "scrub-scaling": {
        ours: scrub.largeMs,
        baseline: scrub.tenSmallMs,
        note:
          "CPU time, median of runs, without the length cap (the scan and the secret pattern themselves); a " +
          "quadratic filter would show ≈ 10×",
      },
      "log-line": { ours: scrub.longLineUs, baseline: scrub.shortLineUs },
    };
    Object.assign(results, await underAttack(ctx, quick));
    return results;
  },
};

async function underAttack(ctx: BenchContext, quick: boolean): Promise<Record<string, Measured>> {
  const seconds = quick ? 1 : 10;
  const warmup = quick ? 0.5 : 2;
  const rounds = ctx.durations.rounds;
  const fake = await startFakeSlack({
    botToken: "xoxb-bench",
    channels: [
      { id: HELPDESK, name: "helpdesk" },
      { id: IT_ADMIN, name: "it-admin" },
    ],
  });
  const dir = await mkdtemp(join(tmpdir(), "order-desk-bench-"));
  // The app's log of the last run, for a diagnosis (bench/.tmp is not committed).
  const logFile = join(ctx.root, "bench", ".tmp", "hostile-app.log");
  await mkdir(dirname(logFile), { recursive: true });
  await rm(logFile, { force: true });
  const secret = generateWebhookSecret();
  let desk: ServerHandle | undefined;
  try {
    desk = await startOrderDeskProcess(ctx, {
      store: { dataDir: join(dir, "data") },
      slackApiUrl: fake.apiUrl,
      // Never called: the events are for orders it does not know.
      supplierBaseUrl: "http://127.0.0.1:9/",
      webhookSecret: secret,
      env: { LOG_LEVEL: "info" },
      logFile,
    });
    const url = desk.url;
    // `longer`: the attack runs 2 s past the others, so their measured windows fall inside it whatever the
    // children's start-up order.
    const load = (
      spec: { connections: number; perSecond: number },
      scenario: string,
      options: unknown,
      path: string,
      longer = 0,
    ) =>
      ctx.runLoad({
        url: new URL(path, url).toString(),
        connections: spec.connections,
        connectionRate: spec.perSecond,
        scenario,
        options,
        warmupSeconds: warmup,
        durationSeconds: seconds + longer,
      });
    const signedOptions = {
      secret,
      path: PATH,
      prepare: Math.ceil(offered(SIGNED) * (seconds + warmup) * 1.2),
    };
    const alone = { signed: [] as LoadResult[], health: [] as LoadResult[] };
    const attacked = { signed: [] as LoadResult[], health: [] as LoadResult[], refused: [] as LoadResult[] };
    for (let round = 1; round <= rounds; round++) {
      await waitForQuiet([desk.pid]);
      const [signedA, healthA] = await Promise.all([
        load(SIGNED, "webhook", signedOptions, PATH),
        load(HEALTH, "healthz", {}, "/healthz"),
      ]);
      alone.signed.push(signedA);
      alone.health.push(healthA);
      ctx.log(
        `  round ${round}/${rounds}, signed alone: ${signedA.rate.toFixed(0)} events/s, /healthz p99 ${healthA.latency.p99.toFixed(1)} ms`,
      );
      await waitForQuiet([desk.pid]);
      const [signedB, healthB, refusedB] = await Promise.all([
        load(SIGNED, "webhook", signedOptions, PATH),
        load(HEALTH, "healthz", {}, "/healthz"),
        load(REFUSED, "refused-webhook", { path: PATH }, PATH, quick ? 0 : 2),
      ]);
      attacked.signed.push(signedB);
      attacked.health.push(healthB);
      attacked.refused.push(refusedB);
      ctx.log(
        `  round ${round}/${rounds}, under attack: ${signedB.rate.toFixed(0)} events/s, /healthz p99 ${healthB.latency.p99.toFixed(1)} ms, ` +
          `${answeredRate(refusedB).toFixed(0)} refusals/s (${describeCodes(refusedB)})`,
      );
    }
    const signedAlone = combineLoad(alone.signed);
    const signedAttacked = combineLoad(attacked.signed);
    const healthAlone = combineLoad(alone.health);
    const healthAttacked = combineLoad(attacked.health);
    const refusedPerSecond =
      attacked.refused.reduce((n, r) => n + answeredRate(r), 0) / Math.max(1, attacked.refused.length);
    const failed =
      signedAlone.failed > 0 ||
      signedAttacked.failed > 0 ||
      healthAlone.failed > 0 ||
      healthAttacked.failed > 0;
    const spread = (c: typeof healthAlone) => `${c.p99Range[0].toFixed(1)}–${c.p99Range[1].toFixed(1)} ms`;
    return {
      "healthz-p99": {
        ours: healthAttacked.latency.p99,
        baseline: healthAlone.latency.p99,
        failed,
        note:
          `order-desk start on PGlite, LOG_LEVEL=info; ${rounds} alternating rounds of ${seconds} s a side, median ` +
          `of the rounds' p99 (alone ${spread(healthAlone)}, under attack ${spread(healthAttacked)}); p50 ` +
          `${healthAlone.latency.p50.toFixed(1)} → ${healthAttacked.latency.p50.toFixed(1)} ms`,
      },
      "signed-rate": {
        ours: signedAttacked.rate,
        baseline: signedAlone.rate,
        failed,
        note: `${SIGNED.connections} clients × ${SIGNED.perSecond}/s, orphan events (stored, nothing posted); p99 ${signedAlone.latency.p99.toFixed(1)} → ${signedAttacked.latency.p99.toFixed(1)} ms`,
      },
      "refused-rate": {
        ours: refusedPerSecond,
        baseline: offered(REFUSED),
        note: `${REFUSED.connections} clients × ${REFUSED.perSecond}/s; answers: ${describeCodes(...attacked.refused)}`,
      },
    };
  } finally {
    await desk?.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Answers of any status per second (a refusal is the expected answer here). */
function answeredRate(result: LoadResult): number {
  const answered = Object.values(result.statusCodes).reduce((n, count) => n + count, 0);
  return result.durationSeconds > 0 ? answered / result.durationSeconds : 0;
}

function describeCodes(...results: LoadResult[]): string {
  const codes: Record<string, number> = {};
  let errors = 0;
  for (const r of results) {
    errors += r.errors + r.timeouts;
    for (const [code, n] of Object.entries(r.statusCodes)) codes[code] = (codes[code] ?? 0) + n;
  }
  const parts = Object.entries(codes).map(([code, n]) => `${n.toLocaleString("en-US")} × ${code}`);
  if (errors > 0) parts.push(`${errors} errors or timeouts`);
  return parts.join(", ") || "none";
}
