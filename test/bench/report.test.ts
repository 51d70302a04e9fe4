import { describe, expect, it } from "vitest";
import {
  formatBound,
  formatNotes,
  formatNumber,
  formatTable,
  mergeResults,
  parseResultsMarkdown,
  type ResultsDocument,
  type Row,
  ratioOf,
  renderResultsMarkdown,
  verdictOf,
} from "../../bench/lib/report.ts";

function row(overrides: Partial<Row> = {}): Row {
  return {
    benchmark: "sandbox",
    metric: "create-order throughput",
    unit: "req/s",
    ours: 6000,
    baseline: 10000,
    baselineLabel: "bare node:http",
    bounds: [{ on: "ratio", op: ">=", value: 0.5 }],
    ...overrides,
  };
}

describe("verdictOf", () => {
  it("passes a row whose ratio ours/baseline meets its bound", () => {
    expect(ratioOf(row())).toBeCloseTo(0.6);
    expect(verdictOf(row())).toBe("pass");
  });

  it("misses when the ratio is on the wrong side of the bound", () => {
    expect(verdictOf(row({ ours: 4000 }))).toBe("MISS");
  });

  it("needs every bound to hold: an absolute floor and a ratio", () => {
    const bounds: Row["bounds"] = [
      { on: "value", op: ">=", value: 1500 },
      { on: "ratio", op: ">=", value: 0.8 },
    ];
    expect(verdictOf(row({ ours: 1400, baseline: 1500, bounds }))).toBe("MISS");
    expect(verdictOf(row({ ours: 1600, baseline: 2500, bounds }))).toBe("MISS");
    expect(verdictOf(row({ ours: 1600, baseline: 1800, bounds }))).toBe("pass");
  });

  it("misses a ratio bound when there is no baseline to divide by", () => {
    expect(verdictOf(row({ baseline: null }))).toBe("MISS");
  });

  it("judges 'within 2× the baseline + 20 ms' against the baseline scaled and the allowance added", () => {
    const bounds: Row["bounds"] = [{ on: "ratio", op: "<=", value: 2, plus: 20 }];
    expect(verdictOf(row({ unit: "ms", ours: 29, baseline: 4, bounds }))).toBe("MISS");
    expect(verdictOf(row({ unit: "ms", ours: 28, baseline: 4, bounds }))).toBe("pass");
    expect(verdictOf(row({ unit: "ms", ours: 28, baseline: null, bounds }))).toBe("MISS");
    expect(formatBound(bounds[0] as Row["bounds"][number], "ms")).toBe("≤ 2× baseline + 20 ms");
  });

  it("judges latency ceilings with <=", () => {
    const bounds: Row["bounds"] = [{ on: "value", op: "<=", value: 50 }];
    expect(verdictOf(row({ unit: "ms", ours: 50, bounds }))).toBe("pass");
    expect(verdictOf(row({ unit: "ms", ours: 50.1, bounds }))).toBe("MISS");
  });

  it("never passes a row whose measurement had failed requests, however good the figure", () => {
    expect(verdictOf(row({ failed: true }))).toBe("MISS");
    expect(
      verdictOf(row({ unit: "ms", ours: 0, bounds: [{ on: "value", op: "<=", value: 50 }], failed: true })),
    ).toBe("MISS");
    expect(verdictOf(row({ bounds: [], failed: true }))).toBe("info");
  });

  it("never passes a row that was not measured, and marks rows without a target informational", () => {
    expect(verdictOf(row({ ours: null, skipped: "needs src/webhooks" }))).toBe("not run");
    expect(verdictOf(row({ bounds: [] }))).toBe("info");
  });
});

describe("formatNumber", () => {
  it("keeps three significant figures and groups thousands", () => {
    expect(formatNumber(25291.4)).toBe("25,291");
    expect(formatNumber(123.4)).toBe("123");
    expect(formatNumber(12.345)).toBe("12.3");
    expect(formatNumber(1.2345)).toBe("1.23");
    expect(formatNumber(0.04321)).toBe("0.043");
    expect(formatNumber(50)).toBe("50");
    expect(formatNumber(null)).toBe("—");
    expect(formatNumber(Number.NaN)).toBe("—");
  });
});

describe("formatNotes", () => {
  it("says once per benchmark why it did not run, and lists each measured row's note", () => {
    const notes = formatNotes([
      row({ benchmark: "webhooks", ours: null, skipped: "needs src/webhooks" }),
      row({ benchmark: "webhooks", metric: "p99", ours: null, skipped: "needs src/webhooks" }),
      row({ note: "16 connections" }),
    ]);
    expect(notes.split("\n")).toEqual([
      "- **webhooks**: not run: needs src/webhooks",
      "- **sandbox / create-order throughput**: 16 connections",
    ]);
  });
});

describe("formatTable", () => {
  it("prints one Markdown row per figure with ratio, target and verdict", () => {
    const table = formatTable([
      row(),
      row({ metric: "p99", unit: "ms", ours: null, skipped: "x", bounds: [] }),
    ]);
    const lines = table.split("\n");
    expect(lines[0]).toBe("| benchmark | metric | ours | baseline | ratio | target | result |");
    expect(lines[2]).toBe(
      "| sandbox | create-order throughput | 6,000 req/s | 10,000 req/s (bare node:http) | 0.60× | ratio ≥ 0.50 | pass |",
    );
    expect(lines[3]).toContain("| not run |");
    expect(lines[3]).toContain("— (informational)");
  });

  it("escapes pipes so a label cannot break the table", () => {
    expect(formatTable([row({ metric: "a|b" })])).toContain("a\\|b");
  });
});

describe("RESULTS.md round trip", () => {
  const machine = { date: "2026-01-02T00:00:00.000Z", node: "v20", cpu: "CPU", cores: 2, platform: "linux" };
  const doc = (date: string, rows: Row[], ran: string[]): ResultsDocument => ({
    machine: { ...machine, date },
    ran,
    rows,
    measuredAt: Object.fromEntries(ran.map((name) => [name, date])),
  });

  it("reads back what it wrote", () => {
    const written = doc("d1", [row()], ["sandbox"]);
    const text = renderResultsMarkdown(written);
    expect(text).toContain("- Node: v20");
    expect(text).toContain("| sandbox | create-order throughput |");
    expect(parseResultsMarkdown(text)).toEqual(written);
  });

  it("keeps other benchmarks' rows, in place, when one benchmark is re-run", () => {
    const previous = doc(
      "d1",
      [
        row({ benchmark: "client", ours: 1 }),
        row({ benchmark: "sandbox", ours: 2 }),
        row({ benchmark: "x", ours: 3 }),
      ],
      ["client", "sandbox", "x"],
    );
    const current = doc("d2", [row({ benchmark: "sandbox", ours: 20 })], ["sandbox"]);
    const merged = mergeResults(previous, current);
    expect(merged.rows.map((r) => [r.benchmark, r.ours])).toEqual([
      ["client", 1],
      ["sandbox", 20],
      ["x", 3],
    ]);
    expect(merged.measuredAt).toEqual({ client: "d1", sandbox: "d2", x: "d1" });
  });

  it("ignores a file without the data block", () => {
    expect(parseResultsMarkdown("# hand-written\n")).toBeNull();
  });
});
