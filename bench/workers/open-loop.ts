/**
 * Open-loop load generator child: sends requests at a fixed rate for a fixed time whatever the server does,
 * each on its own keep-alive connection from an unbounded pool (so a slow answer never delays the next send),
 * and measures each latency from the request's scheduled time (bench/lib/open-loop.ts). A warm-up at the same
 * rate comes first and is not counted. The requests come from a bench/scenarios/ module, as for autocannon.
 */
import { Agent, request } from "node:http";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type autocannon from "autocannon";
import { readChildConfig, reportResult } from "../lib/ipc.ts";
import { dueBy, type OpenLoopOutcome, scheduledAt, summarizeOpenLoop } from "../lib/open-loop.ts";
import type { Scenario } from "./load.ts";

export interface OpenLoopConfig {
  url: string;
  /** Requests per second. */
  rate: number;
  warmupSeconds: number;
  durationSeconds: number;
  scenario: string;
  options?: unknown;
  /** A request without an answer after this long counts as an error (default 10 s). */
  timeoutMs?: number;
}

const config = readChildConfig<OpenLoopConfig>();
const module = (await import(pathToFileURL(resolve("bench/scenarios", `${config.scenario}.ts`)).href)) as {
  default: Scenario;
};
const [template] = await module.default(config.options);
if (!template) throw new Error(`scenario ${config.scenario} gave no request`);
const target = new URL(config.url);
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

function send(started: number, index: number, outcomes: OpenLoopOutcome[], done: () => void): void {
  const scheduledMs = scheduledAt(index, config.rate);
  const setup = template?.setupRequest;
  const built = typeof setup === "function" ? setup({ ...template }, {}) : (template as autocannon.Request);
  const outcome: OpenLoopOutcome = { scheduledMs, doneMs: null, status: null };
  outcomes.push(outcome);
  let counted = false;
  const settle = () => {
    if (counted) return;
    counted = true;
    done();
  };
  const body = typeof built.body === "string" ? built.body : "";
  const req = request(
    {
      agent,
      host: target.hostname,
      port: target.port,
      method: built.method ?? "GET",
      path: built.path ?? target.pathname,
      headers: { ...(built.headers ?? {}), "content-length": Buffer.byteLength(body) },
      timeout: config.timeoutMs ?? 10_000,
    },
    (res) => {
      res.resume();
      res.on("end", () => {
        outcome.status = res.statusCode ?? null;
        outcome.doneMs = performance.now() - started;
        settle();
      });
    },
  );
  req.on("timeout", () => req.destroy(new Error("timed out")));
  req.on("error", () => settle());
  req.end(body);
}

/** Runs the schedule for `seconds`; resolves once every request has an answer or has failed. */
async function run(seconds: number): Promise<OpenLoopOutcome[]> {
  const total = Math.round(seconds * config.rate);
  const outcomes: OpenLoopOutcome[] = [];
  let sent = 0;
  let settled = 0;
  const started = performance.now();
  await new Promise<void>((finish) => {
    const done = () => {
      settled++;
      if (settled === total) finish();
    };
    // A 1 ms tick sends everything due by now: a late tick sends the backlog at once, and its latencies
    // (from the scheduled time) show the lateness.
    const tick = setInterval(() => {
      const due = dueBy(performance.now() - started, config.rate, total);
      while (sent < due) send(started, sent++, outcomes, done);
      if (sent === total) clearInterval(tick);
    }, 1);
    if (total === 0) finish();
  });
  return outcomes;
}

if (config.warmupSeconds > 0) await run(config.warmupSeconds);
const outcomes = await run(config.durationSeconds);
agent.destroy();
await reportResult(summarizeOpenLoop(outcomes, config.rate));
