/**
 * The common shape of an HTTP benchmark: our server and a baseline server, each in its own process, loaded in
 * alternating rounds by autocannon in a third process with the same scenario.
 */
import type { LoadResult } from "../workers/load.ts";
import { type ChildOptions, type ServerHandle, waitForQuiet } from "./child.ts";
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
}

export interface Comparison {
  ours: Combined;
  baseline: Combined;
  /** Peak RSS of our server during its measured rounds, MB. */
  oursRssUnderLoadMb: number;
  /** Rounds that started while a server was still busy with earlier work (see waitForQuiet). */
  busyRounds: number;
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
    const round = (server: ServerHandle, label: string) => async (): Promise<LoadResult> => {
      if (!(await waitForQuiet([baseline.pid, oursServer.pid]))) busyRounds += 1;
      ctx.log(`  ${label} round`);
      const sampler = setInterval(() => {
        if (server === oursServer) rss = Math.max(Number.isNaN(rss) ? 0 : rss, server.rssMb());
      }, 250);
      try {
        return await ctx.runLoad({
          url: new URL(load.path ?? "/", server.url).toString(),
          connections: load.connections,
          scenario: load.scenario,
          options: load.options(server),
        });
      } finally {
        clearInterval(sampler);
      }
    };
    const rounds = await alternate(ctx.durations.rounds, round(baseline, "baseline"), round(ours, "ours"));
    if (busyRounds > 0) ctx.log(`  ${busyRounds} round(s) started while a server was still busy`);
    return {
      ours: combineLoad(rounds.ours),
      baseline: combineLoad(rounds.baseline),
      oursRssUnderLoadMb: rss,
      busyRounds,
    };
  } finally {
    await ours?.stop();
    await baseline.stop();
  }
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
