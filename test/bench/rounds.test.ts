import { describe, expect, it } from "vitest";
import { describeTail } from "../../bench/lib/compare.ts";
import { alternate, combineLoad } from "../../bench/lib/rounds.ts";
import type { LoadResult } from "../../bench/workers/load.ts";

function round(p99: number, ok = 1000): LoadResult {
  return {
    rate: ok / 4,
    latency: { count: ok, mean: p99 / 3, p50: p99 / 2, p90: p99 / 1.5, p99, max: p99 * 2 },
    ok,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: { "200": ok },
    durationSeconds: 4,
  };
}

describe("rounds of a comparison", () => {
  it("alternates the sides, baseline first, for the number of rounds asked", async () => {
    const order: string[] = [];
    const result = await alternate(
      3,
      async () => order.push("baseline"),
      async () => order.push("ours"),
    );
    expect(order).toEqual(["baseline", "ours", "baseline", "ours", "baseline", "ours"]);
    expect(result.ours).toHaveLength(3);
  });

  it("reports the median round's p99, so two slow rounds out of five do not move it", () => {
    const combined = combineLoad([round(20), round(33), round(19), round(29), round(21)]);
    expect(combined.latency.p99).toBe(21);
    expect(combined.rounds).toBe(5);
    expect(combined.p99Range).toEqual([19, 33]);
    expect(combined.rate).toBe(250);
  });

  it("says how far the rounds' p99 spread, and nothing for a single round", () => {
    expect(describeTail("ours", combineLoad([round(20), round(33), round(19)]))).toBe(
      "ours p99 over 3 rounds 19.0–33.0 ms",
    );
    expect(describeTail("ours", combineLoad([round(20)]))).toBe("");
  });
});
