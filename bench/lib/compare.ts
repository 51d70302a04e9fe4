/**
 * The common shape of an HTTP benchmark: our server and a baseline server, each in its own process, loaded in
 * alternating rounds by autocannon in a third process with the same scenario.
 */
import type { LoadResult } from "../workers/load.ts";
import { type ChildOptions, cpuTicksOfPid, type ServerHandle, waitForQuiet } from "./child.ts";
import { alternate, type Combined, combineLoad } from "./rounds.ts";
import type { BenchContext } from "./types.ts";

export interface ServerSpec {
  script: string;
  config?: unknown;
  options?: ChildOptions;
}

export interface LoadSpec {
  connections: number;
  scenario: string;
  /** Runs once our server is up, before any round (e.g. to build a valid request from it). */
  prepare?: (ours: ServerHandle) => Promise<void>;
  /** Scenario options; may depend on what the server announced (its URL, a key, a secret). */
  options: (server: ServerHandle) => unknown;
  path?: string;
  /** Measured rounds per side; `ctx.durations.rounds` unless given (`tailRounds` for rows gated on a p99). */
  rounds?: number;
}

export interface Comparison {
  ours: Combined;
  baseline: Combined;
  /** Peak RSS of our server during its measured rounds, MB. */
  oursRssUnderLoadMb: number;
  /** Rounds that started while a server was still busy with earlier work (see waitForQuiet). */
  busyRounds: number;
  /**
   * CPU time each server's process used per request it answered, warm-ups included, in ms (NaN without /proc).
   * It moves far less with a shared machine than rates do. A PostgreSQL server's own work is not in it.
   */
  cpuMsPerRequest: { ours: number; baseline: number };
}

/**
 * Starts both servers (one at a time, so their start-ups do not compete), then alternates measured rounds.
 * Every load child also warms up first, so each round measures a hot server.
 */
export async function compareServers(
  ctx: BenchContext,
  servers: { ours: ServerSpec; baseline: ServerSpec },
  load: LoadSpec,
): Promise<Comparison> {
  const baseline = await ctx.startServer(
    servers.baseline.script,
    servers.baseline.config ?? {},
    servers.baseline.options,
  );
  let ours: ServerHandle | undefined;
  try {
    const oursOptions = servers.ours.options ?? {};
    ours = await ctx.startServer(servers.ours.script, servers.ours.config ?? {}, {
      ...oursOptions,
      nodeArgs: [...(oursOptions.nodeArgs ?? []), ...ctx.oursNodeArgs],
    });
    const oursServer = ours;
    await load.prepare?.(ours);
    let rss = Number.NaN;
    let busyRounds = 0;
    const rounds = load.rounds ?? ctx.durations.rounds;
    const done = { ours: 0, baseline: 0 };
    const cpu = { ours: { ticks: 0, answered: 0 }, baseline: { ticks: 0, answered: 0 } };
    const round = (server: ServerHandle, label: "ours" | "baseline") => async (): Promise<LoadResult> => {
      if (!(await waitForQuiet([baseline.pid, oursServer.pid]))) busyRounds += 1;
      done[label] += 1;
      const name = `${label} round ${done[label]}/${rounds}`;
      const sampler = setInterval(() => {
        if (server === oursServer) rss = Math.max(Number.isNaN(rss) ? 0 : rss, server.rssMb());
      }, 250);
      try {
        const ticksBefore = cpuTicksOfPid(server.pid);
        const result = await ctx.runLoad({
          url: new URL(load.path ?? "/", server.url).toString(),
          connections: load.connections,
          scenario: load.scenario,
          options: load.options(server),
        });
        cpu[label].ticks += cpuTicksOfPid(server.pid) - ticksBefore;
        cpu[label].answered += (result.warmupAnswered ?? 0) + result.ok + result.non2xx;
        ctx.log(`  ${name}: ${describeRound(result)}`);
        return result;
      } finally {
        clearInterval(sampler);
      }
    };
    const results = await alternate(rounds, round(baseline, "baseline"), round(ours, "ours"));
    if (busyRounds > 0) ctx.log(`  ${busyRounds} round(s) started while a server was still busy`);
    return {
      ours: combineLoad(results.ours),
      baseline: combineLoad(results.baseline),
      oursRssUnderLoadMb: rss,
      busyRounds,
      // 100 clock ticks a second on Linux.
      cpuMsPerRequest: {
        ours: (cpu.ours.ticks * 10) / cpu.ours.answered,
        baseline: (cpu.baseline.ticks * 10) / cpu.baseline.answered,
      },
    };
  } finally {
    await ours?.stop();
    await baseline.stop();
  }
}

function describeRound(result: LoadResult): string {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const failed = result.non2xx + result.errors;
  return (
    `${Math.round(result.rate).toLocaleString("en-US")} req/s, p50 ${ms(result.latency.p50)}, ` +
    `p99 ${ms(result.latency.p99)}${failed > 0 ? `, ${failed} failed` : ""}`
  );
}

/** "ours p99 over 5 rounds 17.0–20.4 ms" (the row's p99 is their median), or nothing for a single round. */
export function describeTail(label: string, result: Combined): string {
  const [low, high] = result.p99Range;
  if (result.rounds < 2) return "";
  return `${label} p99 over ${result.rounds} rounds ${low.toFixed(1)}–${high.toFixed(1)} ms`;
}

/** "1,234 × 2xx" style note, plus the failures that make a row's figure suspect. */
export function describeLoad(label: string, result: Combined): string {
  const codes = Object.entries(result.statusCodes)
    .filter(([code]) => !code.startsWith("2"))
    .map(([code, n]) => `${n} × ${code}`);
  const failed =
    result.failed > 0 ? `, ${result.failed} failed (${codes.join(", ") || "connection errors"})` : "";
  return `${label}: ${result.ok.toLocaleString("en-US")} answered 2xx${failed}`;
}
