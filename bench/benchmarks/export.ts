/**
 * (issue 26) `/order export` of a month with 5,000 orders: the export as it runs (keyset pages of 500 from the
 * store → CSV lines → a temporary file, then streamed to Slack) against building the same file in memory (one
 * SELECT, one string). Each run is its own process (tsx, `--expose-gc`), seeded, collected, then measured: wall
 * time, and the peak memory above what the process held just before. The embedded store always; PostgreSQL
 * with `--database-url`.
 */
import { median } from "../lib/stats.ts";
import type { Benchmark, Measured } from "../lib/types.ts";
import type { ExportBenchConfig, ExportBenchResult } from "../workers/export.ts";

const ORDERS = 5_000;

async function runs(
  ctx: Parameters<NonNullable<Benchmark["run"]>>[0],
  mode: ExportBenchConfig["mode"],
  databaseUrl: string | undefined,
  rounds: number,
): Promise<ExportBenchResult[]> {
  const out: ExportBenchResult[] = [];
  for (let round = 0; round < rounds; round++) {
    ctx.log(`  ${mode}${databaseUrl ? " (PostgreSQL)" : ""}, round ${round + 1}`);
    const config: ExportBenchConfig = { mode, orders: ORDERS, ...(databaseUrl && { databaseUrl }) };
    const result = await ctx.runWorker<ExportBenchResult>("bench/workers/export.ts", config, {
      nodeArgs: ["--expose-gc", ...(mode === "stream" ? ctx.oursNodeArgs : [])],
      timeoutMs: 300_000,
    });
    if (result.rows !== ORDERS) throw new Error(`${mode}: exported ${result.rows} orders, not ${ORDERS}`);
    out.push(result);
  }
  return out;
}

function rows(
  ours: ExportBenchResult[],
  baseline: ExportBenchResult[],
  where: string,
): Record<string, Measured> {
  const m = (list: ExportBenchResult[], key: keyof ExportBenchResult) => median(list.map((r) => r[key]));
  const note =
    `${ORDERS} orders (3 lines, 2 parcels, 1 event each), ${m(ours, "fileMb").toFixed(1)} MB of CSV with personal data; ` +
    `median of ${ours.length} runs, each its own process; JS heap peak above the start: ` +
    `${m(ours, "peakHeapMb").toFixed(1)} MB streamed, ${m(baseline, "peakHeapMb").toFixed(1)} MB in memory (${where})`;
  return {
    time: { ours: m(ours, "ms"), baseline: m(baseline, "ms"), note },
    memory: { ours: m(ours, "peakRssMb"), baseline: m(baseline, "peakRssMb"), note },
  };
}

export const benchmark: Benchmark = {
  name: "export",
  description: `/order export of a month with ${ORDERS} orders: keyset pages streamed to a file vs the CSV built in memory`,
  requires: ["src/orders/export", "src/store/repositories/order-export.ts"],
  rows: [
    {
      id: "time",
      metric: `export of ${ORDERS} orders (PGlite)`,
      unit: "ms",
      baselineLabel: "one SELECT, CSV built in memory",
      bounds: [{ on: "value", op: "<=", value: 2_000 }],
    },
    {
      id: "memory",
      metric: `peak RSS added by the export of ${ORDERS} orders (PGlite)`,
      unit: "MB",
      baselineLabel: "one SELECT, CSV built in memory",
      bounds: [{ on: "value", op: "<=", value: 32 }],
    },
    {
      id: "pgTime",
      metric: `export of ${ORDERS} orders (PostgreSQL)`,
      unit: "ms",
      baselineLabel: "one SELECT, CSV built in memory",
      bounds: [{ on: "value", op: "<=", value: 2_000 }],
    },
    {
      id: "pgMemory",
      metric: `peak RSS added by the export of ${ORDERS} orders (PostgreSQL)`,
      unit: "MB",
      baselineLabel: "one SELECT, CSV built in memory",
      bounds: [{ on: "value", op: "<=", value: 32 }],
    },
  ],
  async run(ctx) {
    const rounds = Math.max(1, Math.min(3, ctx.durations.rounds));
    const embedded = rows(
      await runs(ctx, "stream", undefined, rounds),
      await runs(ctx, "buffered", undefined, rounds),
      "PGlite in memory",
    );
    const out: Record<string, Measured> = { time: embedded.time!, memory: embedded.memory! };
    if (ctx.databaseUrl === null) {
      const skipped = "needs PostgreSQL: pass --database-url";
      out.pgTime = { ours: null, baseline: null, skipped };
      out.pgMemory = { ours: null, baseline: null, skipped };
      return out;
    }
    const pg = await ctx.withDatabase(async (url) =>
      rows(await runs(ctx, "stream", url, rounds), await runs(ctx, "buffered", url, rounds), "PostgreSQL"),
    );
    out.pgTime = pg.time!;
    out.pgMemory = pg.memory!;
    return out;
  },
};
