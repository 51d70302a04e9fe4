import { describe, expect, it } from "vitest";
import { median, percentile, ratePerSecond, summarize } from "../../bench/lib/stats.ts";

describe("percentile (nearest rank)", () => {
  const hundred = Float64Array.from({ length: 100 }, (_, i) => i + 1);

  it("returns an observed sample: p50 of 1..100 is 50, p99 is 99, p100 is the maximum", () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
  });

  it("takes the first sample for p0 and for any percentile of a single sample", () => {
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
  });

  it("rounds the rank up, so p99 of ten samples is the largest", () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99)).toBe(10);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
  });

  it("is NaN for no samples and refuses a percentile outside 0..100", () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
});

describe("summarize", () => {
  it("sorts unordered samples before taking percentiles", () => {
    const summary = summarize([5, 1, 4, 2, 3]);
    expect(summary).toEqual({ count: 5, mean: 3, p50: 3, p90: 5, p99: 5, max: 5 });
  });

  it("reports a zero count and NaN figures for no samples", () => {
    const summary = summarize([]);
    expect(summary.count).toBe(0);
    expect(summary.p99).toBeNaN();
    expect(summary.max).toBeNaN();
  });
});

describe("ratePerSecond and median", () => {
  it("turns a count over milliseconds into a rate per second", () => {
    expect(ratePerSecond(4500, 3000)).toBe(1500);
    expect(ratePerSecond(1, 0)).toBeNaN();
  });

  it("takes the middle value, or the mean of the two middle values", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});
