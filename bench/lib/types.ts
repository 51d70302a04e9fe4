import type { LoadConfig, LoadResult } from "../workers/load.ts";
import type { ChildOptions, ServerHandle } from "./child.ts";
import type { Bound } from "./report.ts";

/** One row a benchmark promises, declared up front so the table shows its target even when it cannot run. */
export interface RowSpec {
  id: string;
  metric: string;
  unit: string;
  baselineLabel: string;
  bounds: Bound[];
}

export interface Measured {
  ours: number | null;
  baseline: number | null;
  note?: string;
  /** The row could not be measured in this run: why. */
  skipped?: string;
  /** Requests failed while measuring (errors, non-2xx): the figure is not a measurement of working code. */
  failed?: boolean;
}

export interface BenchContext {
  /** Repository root (children run with it as their working directory). */
  root: string;
  /** PostgreSQL server URL for rows that need one, or null when none was given. */
  databaseUrl: string | null;
  /** Progress on stderr (the table goes to stdout). */
  log(message: string): void;
  /** Node flags for the processes running OUR code (`--cpu-prof …` under `--profile`), empty otherwise. */
  oursNodeArgs: string[];
  /**
   * Seconds of each measured load run and of its warm-up; how many rounds each side gets, and how many when a
   * row's target is on a p99 (`tailRounds`: the tail of one short round moves with the shared machine, so
   * those rows take the median of more rounds).
   */
  durations: { warmupSeconds: number; measureSeconds: number; rounds: number; tailRounds: number };
  startServer<I = Record<string, unknown>>(
    script: string,
    config: unknown,
    options?: ChildOptions,
  ): Promise<ServerHandle<I>>;
  runWorker<T>(script: string, config: unknown, options?: ChildOptions): Promise<T>;
  /** autocannon in its own process: warm-up, then a measured run. */
  runLoad(
    config: Omit<LoadConfig, "warmupSeconds" | "durationSeconds"> & Partial<LoadConfig>,
  ): Promise<LoadResult>;
  /**
   * A fresh PostgreSQL database for the duration of `fn`, dropped afterwards (even when `fn` throws).
   * Throws when no server URL was given.
   */
  withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T>;
}

export interface Benchmark {
  name: string;
  /** One line for `--list` and docs/benchmarks.md. */
  description: string;
  /** Repository paths (files or directories) the benchmark needs; missing ones make its rows "not run". */
  requires: string[];
  rows: RowSpec[];
  /**
   * Measures the rows, keyed by `RowSpec.id`. Rows left out are reported as not measured. Absent while the
   * benchmark is only planned: its rows are then listed as not run, with `pending` saying what it waits for.
   */
  run?: (ctx: BenchContext) => Promise<Record<string, Measured>>;
  pending?: string;
}
