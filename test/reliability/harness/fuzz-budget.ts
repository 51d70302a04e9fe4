/**
 * How much a fuzzed surface runs: at least its floor of cases, then up to its count of cases
 * (`RELIABILITY_FUZZ_RUNS`, the cap) for no longer than its time budget, whichever ends first. The floor runs
 * whatever the clock says, so a starved machine (two cores shared with other test runs) still tries a useful
 * number of cases; the rest stops generating when the budget is spent (fast-check's `interruptAfterTimeLimit`)
 * and the property holds for the cases it ran, so such a machine runs fewer cases instead of timing the test
 * out. The note says how many ran. The test's timeout is the budget plus what the test does around the property
 * (setup, the checks after it, and the floor should it outlast the budget), so it only fires on a real hang.
 *
 * `RELIABILITY_FUZZ_SECONDS` sets every budget (seconds); `RELIABILITY_FULL=1` multiplies them by 10 so the
 * issue's full counts get the time they need.
 */
import fc from "fast-check";

export const FUZZ_SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));

const scale = process.env.RELIABILITY_FULL === "1" ? 10 : 1;

/** The floor when a surface names none: a tenth of the cap, at least 10 cases and at most 100. */
function defaultFloor(runs: number): number {
  return Math.min(runs, Math.max(10, Math.min(100, Math.ceil(runs / 10))));
}

export interface FuzzBudget {
  /** The most cases, the cases that always run, and the budget of the rest (ms). */
  readonly runs: number;
  readonly floor: number;
  readonly limitMs: number;
  /** For `it(…, timeoutMs)`: the budget and `aroundMs` for the rest of the test. */
  readonly timeoutMs: number;
  /**
   * Checks the property: the floor's cases first (seed `FUZZ_SEED`), then the rest of the cap within what is left
   * of the budget (seed `FUZZ_SEED + 1`, so they are other cases than the floor's). Both replay with the seed.
   */
  assert<Ts>(property: fc.IAsyncProperty<Ts>): Promise<void>;
  /** A line for the scenario's notes: cases run of the cap, and whether the budget cut it short. */
  note(surface: string, ran: number): string;
}

export function fuzzBudget(
  runs: number,
  budgetSeconds: number,
  aroundMs: number,
  floor: number = defaultFloor(runs),
): FuzzBudget {
  const seconds = Number(process.env.RELIABILITY_FUZZ_SECONDS ?? budgetSeconds) * scale;
  const limitMs = Math.round(seconds * 1000);
  const always = Math.min(floor, runs);
  return {
    runs,
    floor: always,
    limitMs,
    timeoutMs: limitMs + aroundMs,
    async assert(property) {
      const started = Date.now();
      if (always > 0) await fc.assert(property, { numRuns: always, seed: FUZZ_SEED });
      const leftMs = limitMs - (Date.now() - started);
      if (runs > always && leftMs > 0) {
        await fc.assert(property, {
          numRuns: runs - always,
          seed: FUZZ_SEED + 1,
          interruptAfterTimeLimit: leftMs,
        });
      }
    },
    note: (surface, ran) =>
      `${surface}: ${ran} of ${runs} cases${ran < runs ? ` (the ${seconds} s budget ran out first; at least ${always} always run)` : ""}, seed ${FUZZ_SEED}`,
  };
}
