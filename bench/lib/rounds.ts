/**
 * Ours and the baseline measured in alternating rounds (baseline, ours, baseline, ours…), so a slow patch of the
 * machine — another process, a thermal dip — hits both sides rather than one.
 */
import type { LoadResult } from "../workers/load.ts";
import { type LatencySummary, median, ratePerSecond, summarize } from "./stats.ts";

export async function alternate<T>(
  rounds: number,
  baseline: () => Promise<T>,
  ours: () => Promise<T>,
): Promise<{ baseline: T[]; ours: T[] }> {
  const result = { baseline: [] as T[], ours: [] as T[] };
  for (let round = 0; round < rounds; round++) {
    result.baseline.push(await baseline());
    result.ours.push(await ours());
  }
  return result;
}

export interface Combined {
  rate: number;
  latency: LatencySummary;
  ok: number;
  failed: number;
  statusCodes: Record<string, number>;
  rounds: number;
  /** The lowest and highest round p99: how much the shared machine moved the tail during the run. */
  p99Range: [number, number];
}

/**
 * Load results of several rounds as one: the rate over all rounds' time, and the latency percentiles of the
 * rounds' medians (raw samples are not shipped back from autocannon children, and medians resist one bad round).
 */
export function combineLoad(results: readonly LoadResult[]): Combined {
  let ok = 0;
  let failed = 0;
  let seconds = 0;
  const statusCodes: Record<string, number> = {};
  for (const r of results) {
    ok += r.ok;
    failed += r.non2xx + r.errors;
    seconds += r.durationSeconds;
    for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  }
  const pick = (key: keyof LatencySummary) =>
    median(results.map((r) => r.latency[key]).filter((v) => !Number.isNaN(v)));
  const p99s = results.map((r) => r.latency.p99).filter((v) => !Number.isNaN(v));
  return {
    rate: ratePerSecond(ok, seconds * 1000),
    latency: {
      count: results.reduce((n, r) => n + r.latency.count, 0),
      mean: pick("mean"),
      p50: pick("p50"),
      p90: pick("p90"),
      p99: pick("p99"),
      max: Math.max(...results.map((r) => r.latency.max)),
    },
    ok,
    failed,
    statusCodes,
    rounds: results.length,
    p99Range: p99s.length > 0 ? [Math.min(...p99s), Math.max(...p99s)] : [Number.NaN, Number.NaN],
  };
}

/** Raw latency samples of several rounds as one distribution. */
export function combineSamples(
  rounds: readonly { count: number; elapsedMs: number; latencies: number[] }[],
): {
  rate: number;
  latency: LatencySummary;
} {
  const all: number[] = [];
  let count = 0;
  let elapsed = 0;
  for (const r of rounds) {
    for (const v of r.latencies) all.push(v);
    count += r.count;
    elapsed += r.elapsedMs;
  }
  return { rate: ratePerSecond(count, elapsed), latency: summarize(all) };
}
