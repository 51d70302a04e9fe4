/**
 * (issue 10) What `SupplierClient.createOrder` costs over a raw `undici.request` with the same body to the same
 * local server: key check, the contract's rules, serialisation, envelope parsing. Both run in a driver process
 * with fixed concurrency; the server is a bare node:http supplier in another process.
 */
import { combineSamples } from "../lib/rounds.ts";
import type { Benchmark } from "../lib/types.ts";
import type { ClientDriverConfig, ClientDriverResult, PairedDriverResult } from "../workers/client-driver.ts";

const CONCURRENCY = 10;
/**
 * Short alternating slices in one process: the machine is shared, and a burst of someone else's work during a
 * multi-second round of one side only skewed the ratio by tens of percent.
 */
const SLICE_SECONDS = 0.5;

export const benchmark: Benchmark = {
  name: "client",
  description: `SupplierClient.createOrder vs raw undici.request, same body, same local server, ${CONCURRENCY} concurrent callers`,
  requires: ["src/supplier/client.ts"],
  rows: [
    {
      id: "rate",
      metric: "createOrder throughput",
      unit: "calls/s",
      baselineLabel: "raw undici.request",
      // ≤ 10 % overhead: baseline / ours ≤ 1.10, i.e. ours / baseline ≥ 1 / 1.10.
      bounds: [{ on: "ratio", op: ">=", value: 1 / 1.1 }],
    },
    {
      id: "p50",
      metric: "createOrder latency p50",
      unit: "ms",
      baselineLabel: "raw undici.request",
      bounds: [{ on: "ratio", op: "<=", value: 1.1 }],
    },
    {
      id: "p99",
      metric: "createOrder latency p99",
      unit: "ms",
      baselineLabel: "raw undici.request",
      bounds: [],
    },
  ],
  async run(ctx) {
    const server = await ctx.startServer("bench/servers/bare-supplier.ts", {});
    try {
      const rounds = { ours: [] as ClientDriverResult[], baseline: [] as ClientDriverResult[] };
      for (let round = 0; round < ctx.durations.rounds; round++) {
        ctx.log(`  paired round ${round + 1}`);
        const config: ClientDriverConfig = {
          mode: "paired",
          url: server.url,
          concurrency: CONCURRENCY,
          warmupSeconds: ctx.durations.warmupSeconds,
          // Each side gets measureSeconds of slices.
          durationSeconds: 2 * ctx.durations.measureSeconds,
          sliceSeconds: SLICE_SECONDS,
        };
        const result = await ctx.runWorker<PairedDriverResult>("bench/workers/client-driver.ts", config, {
          nodeArgs: ctx.oursNodeArgs,
        });
        for (const [side, r] of [
          ["client", result.client],
          ["raw", result.raw],
        ] as const) {
          if (r.errors > 0) throw new Error(`${side}: ${r.errors} failed calls, first: ${r.firstError}`);
        }
        rounds.ours.push(result.client);
        rounds.baseline.push(result.raw);
      }
      const raw = combineSamples(rounds.baseline);
      const ours = combineSamples(rounds.ours);
      // The driver is CPU-bound, so 1/rate is the CPU time per call; the difference is what the client adds.
      const extraMicros = (1 / ours.rate - 1 / raw.rate) * 1e6;
      const note =
        `${CONCURRENCY} concurrent callers, both in one driver process in alternating ${SLICE_SECONDS * 1000} ms slices, ` +
        `${ctx.durations.rounds} × ${ctx.durations.measureSeconds} s each; ` +
        `the client costs ≈ ${Math.round(extraMicros)} µs more CPU per call than the raw request`;
      return {
        rate: { ours: ours.rate, baseline: raw.rate, note },
        p50: { ours: ours.latency.p50, baseline: raw.latency.p50 },
        p99: { ours: ours.latency.p99, baseline: raw.latency.p99 },
      };
    } finally {
      await server.stop();
    }
  },
};
