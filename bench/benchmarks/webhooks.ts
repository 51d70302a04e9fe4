/**
 * (issue 7) Webhook ingest: signed Standard Webhooks requests to `POST /webhooks/supplier` with the real store,
 * beside a bare node:http handler doing the same verification and the same single INSERT, on PGlite and on
 * PostgreSQL.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateWebhookSecret } from "../../src/supplier/webhook-signature.ts";
import { type Comparison, compareServers, describeLoad } from "../lib/compare.ts";
import type { BenchContext, Benchmark, Measured } from "../lib/types.ts";

const BARE = "bare node:http verify + INSERT";
const CONNECTIONS = 16;
const PATH = "/webhooks/supplier";

type StoreTarget = { dataDir: string } | { databaseUrl: string };

async function compareOn(
  ctx: BenchContext,
  secret: string,
  ours: StoreTarget,
  baseline: StoreTarget,
): Promise<Comparison> {
  return compareServers(
    ctx,
    {
      baseline: { script: "bench/servers/bare-webhook.ts", config: { secret, ...baseline } },
      // The WEBHOOKS helper's launcher of the production route: HTTP server, limits, verification, parsing,
      // real store, same-transaction post-update enqueue; it seeds orders so events take the full path.
      ours: { script: "bench/servers/webhook-receiver.ts", config: { secret, ...ours } },
    },
    {
      connections: CONNECTIONS,
      scenario: "webhook",
      options: (server) => ({
        secret,
        path: PATH,
        correlationIds: (server.info as { correlationIds?: string[] }).correlationIds ?? [],
      }),
      path: PATH,
    },
  );
}

function rowsFrom(prefix: string, result: Comparison): Record<string, Measured> {
  const failed = result.ours.failed > 0 || result.baseline.failed > 0;
  const note = `${CONNECTIONS} connections; ${describeLoad("ours", result.ours)}; ${describeLoad("bare", result.baseline)}${failed ? " — failures make these figures invalid" : ""}`;
  return {
    [`${prefix}-rate`]: { ours: result.ours.rate, baseline: result.baseline.rate, note, failed },
    [`${prefix}-p50`]: { ours: result.ours.latency.p50, baseline: result.baseline.latency.p50, failed },
    [`${prefix}-p99`]: { ours: result.ours.latency.p99, baseline: result.baseline.latency.p99, failed },
  };
}

export const benchmark: Benchmark = {
  name: "webhooks",
  description: "webhook ingest rate and p50/p99, signed requests, real store, PGlite and PostgreSQL",
  requires: ["src/supplier/webhook-signature.ts", "src/store/db.ts", "bench/servers/webhook-receiver.ts"],
  rows: [
    {
      id: "pglite-rate",
      metric: "ingest rate (PGlite)",
      unit: "events/s",
      baselineLabel: BARE,
      bounds: [
        { on: "value", op: ">=", value: 1500 },
        { on: "ratio", op: ">=", value: 0.8 },
      ],
    },
    { id: "pglite-p50", metric: "ingest latency p50 (PGlite)", unit: "ms", baselineLabel: BARE, bounds: [] },
    {
      id: "pglite-p99",
      metric: "ingest latency p99 (PGlite)",
      unit: "ms",
      baselineLabel: BARE,
      bounds: [{ on: "value", op: "<=", value: 50 }],
    },
    {
      id: "pg-rate",
      metric: "ingest rate (PostgreSQL)",
      unit: "events/s",
      baselineLabel: BARE,
      bounds: [
        { on: "value", op: ">=", value: 4000 },
        { on: "ratio", op: ">=", value: 0.8 },
      ],
    },
    { id: "pg-p50", metric: "ingest latency p50 (PostgreSQL)", unit: "ms", baselineLabel: BARE, bounds: [] },
    {
      id: "pg-p99",
      metric: "ingest latency p99 (PostgreSQL)",
      unit: "ms",
      baselineLabel: BARE,
      bounds: [{ on: "value", op: "<=", value: 50 }],
    },
  ],
  async run(ctx) {
    const secret = generateWebhookSecret();
    // On disk, as deployed (the app's default store is a PGlite data directory); one directory per server.
    const dirs = await mkdtemp(join(tmpdir(), "order-desk-bench-"));
    const results: Record<string, Measured> = {};
    try {
      ctx.log("  PGlite");
      const pglite = await compareOn(
        ctx,
        secret,
        { dataDir: join(dirs, "ours") },
        { dataDir: join(dirs, "baseline") },
      );
      Object.assign(results, rowsFrom("pglite", pglite));
    } finally {
      await rm(dirs, { recursive: true, force: true });
    }
    if (ctx.databaseUrl === null) {
      const skipped = "needs PostgreSQL: pass --database-url or set DATABASE_URL";
      for (const id of ["pg-rate", "pg-p50", "pg-p99"]) results[id] = { ours: null, baseline: null, skipped };
      return results;
    }
    ctx.log("  PostgreSQL");
    // A database each, so neither side's table grows with the other's events.
    const postgres = await ctx.withDatabase((oursUrl) =>
      ctx.withDatabase((baselineUrl) =>
        compareOn(ctx, secret, { databaseUrl: oursUrl }, { databaseUrl: baselineUrl }),
      ),
    );
    Object.assign(results, rowsFrom("pg", postgres));
    return results;
  },
};
