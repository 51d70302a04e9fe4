/**
 * How much a fuzzed surface runs: up to its count of cases (`RELIABILITY_FUZZ_RUNS`, the cap) and no longer than
 * its time budget. fast-check stops generating when the budget is spent (`interruptAfterTimeLimit`) and the
 * property holds for the cases it ran, so a starved machine (two cores shared with other test runs) runs fewer
 * cases instead of timing the test out; the note says how many ran. The test's timeout is the budget plus what
 * the test does around the property (setup, the checks after it), so it only fires on a real hang.
 *
 * `RELIABILITY_FUZZ_SECONDS` sets every budget (seconds); `RELIABILITY_FULL=1` multiplies them by 10 so the
 * issue's full counts get the time they need.
 */
export const FUZZ_SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));

const scale = process.env.RELIABILITY_FULL === "1" ? 10 : 1;

export interface FuzzBudget {
  /** Pass to `fc.assert`. */
  readonly params: { numRuns: number; seed: number; interruptAfterTimeLimit: number };
  /** For `it(…, timeoutMs)`: the budget and `aroundMs` for the rest of the test. */
  readonly timeoutMs: number;
  /** A line for the scenario's notes: cases run of the cap, and whether the budget cut it short. */
  note(surface: string, ran: number): string;
}

export function fuzzBudget(runs: number, budgetSeconds: number, aroundMs: number): FuzzBudget {
  const seconds = Number(process.env.RELIABILITY_FUZZ_SECONDS ?? budgetSeconds) * scale;
  const limitMs = Math.round(seconds * 1000);
  return {
    params: { numRuns: runs, seed: FUZZ_SEED, interruptAfterTimeLimit: limitMs },
    timeoutMs: limitMs + aroundMs,
    note: (surface, ran) =>
      `${surface}: ${ran} of ${runs} cases${ran < runs ? ` (the ${seconds} s budget ran out first)` : ""}, seed ${FUZZ_SEED}`,
  };
}
