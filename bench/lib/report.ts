/**
 * The results table: rows, how a row is judged against its target, and the Markdown it is printed as. Pure.
 *
 * Every row's ratio is `ours / baseline` with both measured in the same run, so a noisy machine moves both and
 * the ratio stays meaningful. Targets are bounds on that ratio or on the figure itself; a row passes only when
 * all of its bounds hold, and a row that could not be measured never passes.
 */

export type Bound =
  /**
   * Bound on `ours / baseline`; with `plus`, on `ours` against `value × baseline + plus` (in the row's unit), for
   * a target like "within 2× of the baseline + 20 ms" where a small baseline makes a bare ratio too strict.
   */
  | { on: "ratio"; op: "<=" | ">="; value: number; plus?: number }
  /** Bound on `ours` itself, in the row's unit. */
  | { on: "value"; op: "<=" | ">="; value: number };

export interface Row {
  /** The benchmark module the row comes from (what `npm run bench -- NAME` selects). */
  benchmark: string;
  /** What the row measures, e.g. "create-order throughput (PGlite)". */
  metric: string;
  unit: string;
  ours: number | null;
  baseline: number | null;
  /** What the baseline is, e.g. "raw undici.request". */
  baselineLabel: string;
  bounds: Bound[];
  /** Set when the row could not be measured: the reason (missing code, a failed run). */
  skipped?: string;
  /** Anything a reader needs to interpret the figure (errors seen, rounds, concurrency). */
  note?: string;
  /** Requests failed during the measurement: a fast answer that is an error is no pass. */
  failed?: boolean;
}

export type Verdict = "pass" | "MISS" | "info" | "not run";

export function ratioOf(row: Row): number | null {
  if (row.ours === null || row.baseline === null || row.baseline === 0) return null;
  return row.ours / row.baseline;
}

function holds(actual: number, bound: Bound): boolean {
  return bound.op === "<=" ? actual <= bound.value : actual >= bound.value;
}

export function verdictOf(row: Row): Verdict {
  if (row.skipped !== undefined || row.ours === null || Number.isNaN(row.ours)) return "not run";
  if (row.bounds.length === 0) return "info";
  if (row.failed) return "MISS";
  const ratio = ratioOf(row);
  for (const bound of row.bounds) {
    if (bound.on === "ratio" && bound.plus !== undefined) {
      if (row.baseline === null || Number.isNaN(row.baseline)) return "MISS";
      const limit = bound.value * row.baseline + bound.plus;
      if (!holds(row.ours, { ...bound, value: limit })) return "MISS";
      continue;
    }
    const actual = bound.on === "ratio" ? ratio : row.ours;
    if (actual === null || Number.isNaN(actual) || !holds(actual, bound)) return "MISS";
  }
  return "pass";
}

/** Three significant figures, thousands grouped: enough to compare, not so much that noise looks like signal. */
export function formatNumber(value: number | null): string {
  if (value === null || Number.isNaN(value)) return "—";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  const abs = Math.abs(value);
  if (Number.isInteger(value) && abs < 1000) return String(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return "0";
  return value.toPrecision(2);
}

export function formatBound(bound: Bound, unit: string): string {
  const op = bound.op === "<=" ? "≤" : "≥";
  if (bound.on === "ratio" && bound.plus !== undefined) {
    return `${op} ${formatNumber(bound.value)}× baseline + ${formatNumber(bound.plus)} ${unit}`;
  }
  return bound.on === "ratio"
    ? `ratio ${op} ${formatNumber(bound.value)}`
    : `${op} ${formatNumber(bound.value)} ${unit}`;
}

export function formatTarget(row: Row): string {
  return row.bounds.length === 0
    ? "— (informational)"
    : row.bounds.map((b) => formatBound(b, row.unit)).join(", ");
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The table printed by `npm run bench` and kept in bench/RESULTS.md. */
export function formatTable(rows: readonly Row[]): string {
  const header = ["benchmark", "metric", "ours", "baseline", "ratio", "target", "result"];
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of rows) {
    const verdict = verdictOf(row);
    const ours = row.ours === null ? "—" : `${formatNumber(row.ours)} ${row.unit}`;
    const baseline =
      row.baseline === null
        ? `— (${row.baselineLabel})`
        : `${formatNumber(row.baseline)} ${row.unit} (${row.baselineLabel})`;
    const ratio = ratioOf(row);
    lines.push(
      `| ${[
        row.benchmark,
        row.metric,
        ours,
        baseline,
        ratio === null ? "—" : `${formatNumber(ratio)}×`,
        formatTarget(row),
        verdict === "pass" ? "pass" : verdict === "MISS" ? "**MISS**" : verdict,
      ]
        .map(cell)
        .join(" | ")} |`,
    );
  }
  return lines.join("\n");
}

/**
 * Notes under the table: a row's note, or why it did not run — once per benchmark when all its rows share the
 * reason (the usual case: its code has not landed).
 */
export function formatNotes(rows: readonly Row[]): string {
  const lines: string[] = [];
  const said = new Set<string>();
  for (const row of rows) {
    if (row.skipped !== undefined) {
      const siblings = rows.filter((r) => r.benchmark === row.benchmark);
      if (siblings.every((r) => r.skipped === row.skipped)) {
        const key = `${row.benchmark}\0${row.skipped}`;
        if (!said.has(key)) lines.push(`- **${row.benchmark}**: not run: ${row.skipped}`);
        said.add(key);
        continue;
      }
      lines.push(`- **${row.benchmark} / ${row.metric}**: not run: ${row.skipped}`);
    } else if (row.note !== undefined) {
      lines.push(`- **${row.benchmark} / ${row.metric}**: ${row.note}`);
    }
  }
  return lines.join("\n");
}

export interface Machine {
  date: string;
  node: string;
  cpu: string;
  cores: number;
  platform: string;
  /** 1-minute load average when the run started and when it ended: others' work shares the machine. */
  load?: { start: number; end: number };
}

export interface ResultsDocument {
  machine: Machine;
  /** The benchmarks this run executed, in order. */
  ran: string[];
  rows: Row[];
  /** Per benchmark: the run that measured its rows (a single-benchmark run updates only its own rows). */
  measuredAt: Record<string, string>;
}

const DATA_OPEN = "<!-- bench-data";
const DATA_CLOSE = "-->";

/**
 * Rows from an earlier RESULTS.md that this run did not re-measure are kept, in their place, so running one
 * benchmark does not wipe the others' figures; their measurement dates stay visible.
 */
export function mergeResults(previous: ResultsDocument | null, current: ResultsDocument): ResultsDocument {
  if (previous === null) return current;
  const ran = new Set(current.ran);
  const order: string[] = [];
  for (const name of [...previous.rows.map((r) => r.benchmark), ...current.rows.map((r) => r.benchmark)]) {
    if (!order.includes(name)) order.push(name);
  }
  const rows: Row[] = [];
  const measuredAt: Record<string, string> = {};
  for (const name of order) {
    const source = ran.has(name) ? current : previous;
    rows.push(...source.rows.filter((r) => r.benchmark === name));
    const at = source.measuredAt[name];
    if (at !== undefined) measuredAt[name] = at;
  }
  return { machine: current.machine, ran: current.ran, rows, measuredAt };
}

export function renderResultsMarkdown(doc: ResultsDocument): string {
  const { machine } = doc;
  const dates = [...new Set(Object.values(doc.measuredAt))];
  const older = Object.entries(doc.measuredAt).filter(([, at]) => at !== machine.date);
  const parts = [
    "# Benchmark results",
    "",
    "Written by `npm run bench` (see docs/benchmarks.md for what each row measures and how). Each ratio is",
    "ours / baseline, both measured in the same run on the machine below. What limits the rows that miss, with",
    "profile evidence: [docs/benchmarks.md](../docs/benchmarks.md#what-limits-the-misses).",
    "",
    `- Date: ${machine.date}`,
    `- Node: ${machine.node}`,
    `- CPU: ${machine.cpu} × ${machine.cores} cores (${machine.platform})`,
    `- Benchmarks run: ${doc.ran.join(", ") || "none"}`,
  ];
  if (machine.load) {
    parts.push(
      `- Load average (1 min) at start / end: ${machine.load.start.toFixed(2)} / ${machine.load.end.toFixed(2)} on ${machine.cores} cores`,
    );
  }
  if (older.length > 0 && dates.length > 1) {
    parts.push(`- Kept from earlier runs: ${older.map(([name, at]) => `${name} (${at})`).join(", ")}`);
  }
  parts.push("", formatTable(doc.rows), "");
  const notes = formatNotes(doc.rows);
  if (notes.length > 0) parts.push("## Notes", "", notes, "");
  // The data block lets a later single-benchmark run keep the other rows (mergeResults).
  parts.push(`${DATA_OPEN}\n${JSON.stringify(doc)}\n${DATA_CLOSE}`, "");
  return parts.join("\n");
}

/** Reads the data block back; null when the file is absent, hand-edited beyond recognition or from an old format. */
export function parseResultsMarkdown(text: string): ResultsDocument | null {
  const start = text.lastIndexOf(DATA_OPEN);
  if (start < 0) return null;
  const end = text.indexOf(DATA_CLOSE, start + DATA_OPEN.length);
  if (end < 0) return null;
  try {
    const doc = JSON.parse(text.slice(start + DATA_OPEN.length, end)) as ResultsDocument;
    return Array.isArray(doc.rows) && doc.measuredAt !== undefined ? doc : null;
  } catch {
    return null;
  }
}
