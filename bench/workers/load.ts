/**
 * Load generator child: autocannon's programmatic API against one URL, a warm-up run then a measured run.
 * Latencies come from autocannon's per-response event (fractional milliseconds) rather than its histogram,
 * which rounds to whole milliseconds and would blur the sub-millisecond figures of fast local servers.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { readChildConfig, reportResult } from "../lib/ipc.ts";
import { type LatencySummary, ratePerSecond, summarize } from "../lib/stats.ts";

export interface LoadConfig {
  url: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Module under bench/scenarios/ (without extension) whose default export builds the requests. */
  scenario: string;
  /** Passed to the scenario. */
  options?: unknown;
  /** Requests in flight per connection (default 1: one request, one answer, like real callers). */
  pipelining?: number;
  /** Requests per second per connection (default: as fast as answers come), for an offered load. */
  connectionRate?: number;
}

export interface LoadResult {
  /** 2xx answers per second over the measured run. */
  rate: number;
  /** Latency of 2xx answers, milliseconds. */
  latency: LatencySummary;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  durationSeconds: number;
  /** Answers (any status) during the warm-up before the measured run: with `ok + non2xx`, what the server served. */
  warmupAnswered?: number;
}

/** What a scenario module exports by default. */
export type Scenario = (options: unknown) => autocannon.Request[] | Promise<autocannon.Request[]>;

async function measure(
  config: LoadConfig,
  requests: autocannon.Request[],
  seconds: number,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(
      {
        url: config.url,
        connections: config.connections,
        pipelining: config.pipelining ?? 1,
        ...(config.connectionRate !== undefined && { connectionRate: config.connectionRate }),
        duration: seconds,
        requests,
        timeout: 10,
      },
      (error: unknown, res: autocannon.Result) => (error ? fail(error) : done(res)),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  const elapsedMs = performance.now() - started;
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
    statusCodes[code] = stat.count ?? 0;
  return {
    rate: ratePerSecond(result["2xx"], Math.min(elapsedMs, result.duration * 1000 || elapsedMs)),
    latency: summarize(latencies),
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    durationSeconds: result.duration,
  };
}

const config = readChildConfig<LoadConfig>();
const module = (await import(pathToFileURL(resolve("bench/scenarios", `${config.scenario}.ts`)).href)) as {
  default: Scenario;
};
const requests = await module.default(config.options);
const warmup = config.warmupSeconds > 0 ? await measure(config, requests, config.warmupSeconds) : undefined;
const measured = await measure(config, requests, config.durationSeconds);
await reportResult({ ...measured, warmupAnswered: warmup ? warmup.ok + warmup.non2xx : 0 });
