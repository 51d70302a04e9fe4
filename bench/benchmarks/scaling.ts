/**
 * (issue 10) Webhook ingest with 1, 2 and 4 replicas sharing one PostgreSQL database, to show how throughput
 * grows. Each replica is the production receiver (bench/servers/webhook-receiver.ts) in its own process with its own
 * autocannon child; the rate is their sum. Informational: on a 2-core machine the replicas, the load generators
 * and PostgreSQL share the same two cores, so this shows the cost of coordination more than added capacity.
 */
import { generateWebhookSecret } from "../../src/supplier/webhook-signature.ts";
import type { ServerHandle } from "../lib/child.ts";
import type { BenchContext, Benchmark, Measured } from "../lib/types.ts";

const ONE = "1 replica";
const TOTAL_CONNECTIONS = 16;
const PATH = "/webhooks/supplier";
const REPLICAS = [1, 2, 4] as const;

async function ingestWith(ctx: BenchContext, databaseUrl: string, replicas: number, secret: string) {
  const servers: ServerHandle[] = [];
  try {
    // One after another: the first applies migrations, the others find them applied.
    for (let i = 0; i < replicas; i++) {
      servers.push(
        await ctx.startServer("bench/servers/webhook-receiver.ts", { secret, databaseUrl, seedOrders: 50 }),
      );
    }
    const connections = Math.max(2, Math.round(TOTAL_CONNECTIONS / replicas));
    const results = await Promise.all(
      servers.map((server) =>
        ctx.runLoad({
          url: new URL(PATH, server.url).toString(),
          connections,
          scenario: "webhook",
          options: {
            secret,
            path: PATH,
            correlationIds: (server.info as { correlationIds?: string[] }).correlationIds ?? [],
            prepare: 10_000,
          },
        }),
      ),
    );
    return {
      rate: results.reduce((sum, r) => sum + r.rate, 0),
      failed: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
      p99: Math.max(...results.map((r) => r.latency.p99)),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

export const benchmark: Benchmark = {
  name: "scaling",
  description: "webhook ingest rate with 1, 2 and 4 replicas on one PostgreSQL",
  requires: ["bench/servers/webhook-receiver.ts"],
  rows: REPLICAS.map((n) => ({
    id: String(n),
    metric: `ingest rate, ${n} replica${n === 1 ? "" : "s"} (PostgreSQL)`,
    unit: "events/s",
    baselineLabel: ONE,
    bounds: [],
  })),
  async run(ctx) {
    if (ctx.databaseUrl === null) {
      const skipped = "needs PostgreSQL: pass --database-url or set DATABASE_URL";
      return Object.fromEntries(REPLICAS.map((n) => [String(n), { ours: null, baseline: null, skipped }]));
    }
    const secret = generateWebhookSecret();
    const rates: Record<number, { rate: number; failed: number; p99: number }> = {};
    for (const n of REPLICAS) {
      ctx.log(`  ${n} replica(s)`);
      // A fresh database per step, so every step starts from the same empty tables.
      rates[n] = await ctx.withDatabase((url) => ingestWith(ctx, url, n, secret));
    }
    const one = rates[1]?.rate ?? null;
    const out: Record<string, Measured> = {};
    for (const n of REPLICAS) {
      const r = rates[n];
      if (!r) continue;
      out[String(n)] = {
        ours: r.rate,
        baseline: one,
        note: `${TOTAL_CONNECTIONS} connections in total, worst replica p99 ${r.p99.toFixed(1)} ms${r.failed > 0 ? `, ${r.failed} failed` : ""}`,
        failed: r.failed > 0,
      };
    }
    return out;
  },
};
