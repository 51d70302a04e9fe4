/**
 * Open-loop load arithmetic. Arrivals follow a fixed schedule (request i is due at i / rate seconds) that does
 * not wait for answers, and each latency runs from the request's scheduled time, not from when it was actually
 * written: a server (or a load generator) that falls behind shows it in the latency instead of quietly
 * sending fewer requests, so coordinated omission cannot hide a stall. Pure, so it is tested without timing.
 */
import { type LatencySummary, summarize } from "./stats.ts";

/** Requests due by `elapsedMs` after the start at `rate` per second, capped at the run's total. */
export function dueBy(elapsedMs: number, rate: number, total: number): number {
  if (elapsedMs < 0) return 0;
  return Math.min(total, Math.floor((elapsedMs * rate) / 1000) + 1);
}

/** When request `index` (from 0) is due, in ms after the start. */
export function scheduledAt(index: number, rate: number): number {
  return (index * 1000) / rate;
}

export interface OpenLoopOutcome {
  /** ms after the start the request was due. */
  scheduledMs: number;
  /** ms after the start its answer was complete, or null when it never came (error, timeout). */
  doneMs: number | null;
  status: number | null;
}

export interface OpenLoopSummary {
  /** Requests the schedule called for. */
  offered: number;
  /** Offered requests per second. */
  rate: number;
  /** Latency from scheduled time of the 2xx answers, ms. */
  latency: LatencySummary;
  ok: number;
  /** Non-2xx answers, connection errors and timeouts. */
  errors: number;
  statusCodes: Record<string, number>;
}

export function summarizeOpenLoop(outcomes: readonly OpenLoopOutcome[], rate: number): OpenLoopSummary {
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  for (const o of outcomes) {
    const key = o.status === null ? "error" : String(o.status);
    statusCodes[key] = (statusCodes[key] ?? 0) + 1;
    if (o.status !== null && o.status >= 200 && o.status < 300 && o.doneMs !== null) {
      latencies.push(o.doneMs - o.scheduledMs);
    } else {
      errors++;
    }
  }
  return {
    offered: outcomes.length,
    rate,
    latency: summarize(latencies),
    ok: latencies.length,
    errors,
    statusCodes,
  };
}
