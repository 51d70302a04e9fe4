/**
 * Latency and rate arithmetic. Pure, so the numbers in the results table are tested without timing anything.
 */

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * Nearest-rank percentile of an ascending array: the smallest value with at least `p`% of the samples at or
 * below it. Chosen over interpolation because every reported figure is then a latency that was really observed.
 */
export function percentile(sortedAscending: ArrayLike<number>, p: number): number {
  const n = sortedAscending.length;
  if (n === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const rank = Math.max(1, Math.ceil((p / 100) * n));
  return sortedAscending[rank - 1] as number;
}

/** Summary of raw latencies (any order, milliseconds). Empty input gives NaN figures and a zero count. */
export function summarize(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const n = sorted.length;
  return {
    count: n,
    mean: n === 0 ? Number.NaN : sum / n,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: n === 0 ? Number.NaN : (sorted[n - 1] as number),
  };
}

/** Completed operations per second over a measured window. */
export function ratePerSecond(count: number, elapsedMs: number): number {
  if (elapsedMs <= 0) return Number.NaN;
  return (count * 1000) / elapsedMs;
}

/** Middle value (mean of the two middle values for an even count); used to pick a representative round. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
