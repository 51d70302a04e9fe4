/**
 * `npm run bench [-- NAME...]`: runs the benchmarks (all, or the named ones), prints the results table and
 * writes it to bench/RESULTS.md with the machine it was measured on.
 *
 * Flags: `--list` names the benchmarks; `--quick` shortens every run (a smoke test of the harness, figures not
 * comparable); `--strict` exits 1 when a row misses its target or a benchmark fails; `--no-write` leaves
 * RESULTS.md alone; `--profile` runs our side of each comparison under `node --cpu-prof` (profiles in
 * bench/.tmp/profiles/NAME/, open them in Chrome DevTools); `--database-url URL` (or DATABASE_URL) enables the PostgreSQL rows — each benchmark gets its
 * own database on that server, dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, platform, release } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { benchmark as client } from "./benchmarks/client-overhead.ts";
import { benchmark as exportOrders } from "./benchmarks/export.ts";
import { benchmark as footprint } from "./benchmarks/footprint.ts";
import { benchmark as hostile } from "./benchmarks/hostile.ts";
import { benchmark as placement } from "./benchmarks/placement.ts";
import { benchmark as sandbox } from "./benchmarks/sandbox.ts";
import { benchmark as scaling } from "./benchmarks/scaling.ts";
import { benchmark as slackAck } from "./benchmarks/slack-ack.ts";
import { benchmark as slackAckOpen } from "./benchmarks/slack-ack-open.ts";
import { benchmark as webhooks } from "./benchmarks/webhooks.ts";
import { runWorker, startServer, stopAllChildren } from "./lib/child.ts";
import {
  formatNotes,
  formatTable,
  type Machine,
  mergeResults,
  parseResultsMarkdown,
  type ResultsDocument,
  type Row,
  renderResultsMarkdown,
  verdictOf,
} from "./lib/report.ts";
import type { BenchContext, Benchmark, Measured } from "./lib/types.ts";
import type { LoadConfig, LoadResult } from "./workers/load.ts";

export const BENCHMARKS: readonly Benchmark[] = [
  client,
  sandbox,
  webhooks,
  slackAck,
  slackAckOpen,
  placement,
  footprint,
  scaling,
  hostile,
  exportOrders,
];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS_PATH = join(ROOT, "bench", "RESULTS.md");

export interface RunBenchOptions {
  databaseUrl?: string | null;
  quick?: boolean;
  write?: boolean;
  strict?: boolean;
  profile?: boolean;
  /** Where the table and progress go (default: stdout and stderr). */
  out?: (text: string) => void;
  err?: (text: string) => void;
}

function machine(): Machine {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpu,
    cores: availableParallelism(),
    platform: `${platform()} ${release()}`,
  };
}

/** Required paths that are absent (an empty directory counts as absent: its module has not landed). */
function missingRequirements(bench: Benchmark): string[] {
  return bench.requires.filter((path) => {
    const full = join(ROOT, path);
    if (!existsSync(full)) return true;
    return statSync(full).isDirectory() && readdirSync(full).length === 0;
  });
}

function rowsOf(bench: Benchmark, measured: Record<string, Measured> | null, failure?: string): Row[] {
  return bench.rows.map((spec) => {
    const m = measured?.[spec.id];
    const row: Row = {
      benchmark: bench.name,
      metric: spec.metric,
      unit: spec.unit,
      baselineLabel: spec.baselineLabel,
      bounds: spec.bounds,
      ours: m?.ours ?? null,
      baseline: m?.baseline ?? null,
    };
    const skipped = failure ?? m?.skipped ?? (m === undefined ? "not measured in this run" : undefined);
    if (skipped !== undefined) row.skipped = skipped;
    if (m?.note !== undefined) row.note = m.note;
    if (m?.failed) row.failed = true;
    return row;
  });
}

async function withDatabase<T>(serverUrl: string | null, fn: (url: string) => Promise<T>): Promise<T> {
  if (serverUrl === null) {
    throw new Error("needs PostgreSQL: pass --database-url postgres://… (or set DATABASE_URL)");
  }
  const name = `order_desk_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    try {
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await cleanup.end();
    }
  }
}

/** Runs the named benchmarks (all when `names` is empty). Resolves with the process exit code. */
export async function runBenchmarks(names: string[], options: RunBenchOptions = {}): Promise<number> {
  const out = options.out ?? ((text: string) => process.stdout.write(`${text}\n`));
  const err = options.err ?? ((text: string) => process.stderr.write(`${text}\n`));
  const unknown = names.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length > 0) {
    err(`Unknown benchmark(s): ${unknown.join(", ")}. Known: ${BENCHMARKS.map((b) => b.name).join(", ")}.`);
    return 2;
  }
  const selected = names.length === 0 ? BENCHMARKS : BENCHMARKS.filter((b) => names.includes(b.name));
  const quick = options.quick ?? false;
  const databaseUrl = options.databaseUrl ?? null;
  const durations = quick
    ? { warmupSeconds: 0.5, measureSeconds: 1, rounds: 1, tailRounds: 1 }
    : { warmupSeconds: 2, measureSeconds: 4, rounds: 2, tailRounds: 5 };
  const ctx: BenchContext = {
    root: ROOT,
    databaseUrl,
    durations,
    log: err,
    oursNodeArgs: [],
    startServer: (script, config, childOptions) => startServer(ROOT, script, config, childOptions),
    runWorker: (script, config, childOptions) => runWorker(ROOT, script, config, childOptions),
    runLoad: (config) =>
      runWorker<LoadResult>(ROOT, "bench/workers/load.ts", {
        warmupSeconds: durations.warmupSeconds,
        durationSeconds: durations.measureSeconds,
        ...config,
      } satisfies LoadConfig),
    withDatabase: (fn) => withDatabase(databaseUrl, fn),
  };

  const info = machine();
  const loadAtStart = loadavg()[0] ?? 0;
  const rows: Row[] = [];
  const measuredAt: Record<string, string> = {};
  let failed = false;
  for (const bench of selected) {
    const missing = missingRequirements(bench);
    if (missing.length > 0) {
      err(`${bench.name}: not run, missing ${missing.join(", ")}`);
      rows.push(...rowsOf(bench, null, `needs ${missing.join(", ")} (not in the tree yet)`));
      continue;
    }
    if (bench.run === undefined) {
      err(`${bench.name}: not run, ${bench.pending ?? "not implemented"}`);
      rows.push(...rowsOf(bench, null, bench.pending ?? "not implemented yet"));
      continue;
    }
    err(`${bench.name}: ${bench.description}`);
    const started = performance.now();
    ctx.oursNodeArgs = options.profile
      ? ["--cpu-prof", `--cpu-prof-dir=${join(ROOT, "bench", ".tmp", "profiles", bench.name)}`]
      : [];
    try {
      rows.push(...rowsOf(bench, await bench.run(ctx)));
    } catch (error) {
      failed = true;
      const message = error instanceof Error ? error.message : String(error);
      err(`${bench.name}: failed: ${message}`);
      rows.push(...rowsOf(bench, null, `failed: ${message.split("\n")[0]}`));
    } finally {
      await stopAllChildren();
    }
    measuredAt[bench.name] = info.date;
    err(`${bench.name}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  const table = formatTable(rows);
  out(`\n${table}\n`);
  const notes = formatNotes(rows);
  if (notes) out(`${notes}\n`);
  out(`${info.date} · Node ${info.node} · ${info.cpu} × ${info.cores} cores${quick ? " · --quick" : ""}`);

  info.load = { start: loadAtStart, end: loadavg()[0] ?? 0 };
  out(`load average (1 min): ${info.load.start.toFixed(2)} at start, ${info.load.end.toFixed(2)} at the end`);
  if ((options.write ?? true) && !quick) {
    const current: ResultsDocument = { machine: info, ran: selected.map((b) => b.name), rows, measuredAt };
    const previous = existsSync(RESULTS_PATH)
      ? parseResultsMarkdown(readFileSync(RESULTS_PATH, "utf8"))
      : null;
    writeFileSync(RESULTS_PATH, renderResultsMarkdown(mergeResults(previous, current)));
    err(`written to ${RESULTS_PATH}`);
  }
  const missed = rows.some((row) => verdictOf(row) === "MISS");
  return options.strict && (missed || failed) ? 1 : 0;
}

function parseArgs(argv: string[]): { names: string[]; options: RunBenchOptions; list: boolean } {
  const names: string[] = [];
  const options: RunBenchOptions = {};
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--list") list = true;
    else if (arg === "--quick") options.quick = true;
    else if (arg === "--strict") options.strict = true;
    else if (arg === "--no-write") options.write = false;
    else if (arg === "--profile") options.profile = true;
    else if (arg === "--database-url") options.databaseUrl = argv[++i] ?? null;
    else if (arg.startsWith("--database-url=")) options.databaseUrl = arg.slice("--database-url=".length);
    else names.push(arg);
  }
  return { names, options, list };
}

/**
 * The command line (`npm run bench -- …`, i.e. `node --import tsx bench/run.ts …`):
 * `[--list] [--quick] [--strict] [--no-write] [--profile] [--database-url URL] [NAME...]`.
 * DATABASE_URL is the fallback for `--database-url`. Resolves with the exit code.
 */
export async function runBench(argv: string[]): Promise<number> {
  const { names, options, list } = parseArgs(argv);
  if (list) {
    for (const b of BENCHMARKS) process.stdout.write(`${b.name.padEnd(12)} ${b.description}\n`);
    return 0;
  }
  // A developer tool, outside src/: it takes the same variable the app and the tests use for PostgreSQL.
  options.databaseUrl ??= process.env.DATABASE_URL ?? null;
  const interrupt = () => {
    void stopAllChildren().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    return await runBenchmarks(names, options);
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await runBench(process.argv.slice(2));
}
