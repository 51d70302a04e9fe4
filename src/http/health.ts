/**
 * `/healthz`: the process answers (liveness: restart me if not). `/readyz`: its dependencies answer
 * (readiness: send me traffic). They differ on purpose: a database outage makes us unready, which takes the
 * replica out of the load balancer, but must not make an orchestrator restart every replica in a loop.
 */

import { sendJson } from "./json.ts";
import type { Route } from "./server.ts";

/** Resolves when the dependency is usable; throws (with a message saying what is wrong) when not. */
export type ReadinessCheck = (signal: AbortSignal) => Promise<void>;

export interface HealthOptions {
  /** Named checks run by `/readyz`, e.g. `{ store: …, queue: … }`. */
  checks: Record<string, ReadinessCheck>;
  /** Longest a check may take before it counts as failed (default 2 s). */
  timeoutMs?: number;
  /** False while starting up or shutting down: `/readyz` answers 503 whatever the checks say. */
  accepting?: () => boolean;
}

export interface CheckResult {
  ok: boolean;
  ms: number;
  error?: string;
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    await Promise.race([check(controller.signal), timeout]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      ok: false,
      ms: Math.round(performance.now() - started),
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(options: HealthOptions): Route[] {
  const timeoutMs = options.timeoutMs ?? 2_000;
  return [
    {
      path: "/healthz",
      methods: ["GET", "HEAD"],
      handler: (_req, res) => sendJson(res, 200, { ok: true, status: "alive" }),
    },
    {
      path: "/readyz",
      methods: ["GET", "HEAD"],
      handler: async (_req, res) => {
        const entries = Object.entries(options.checks);
        const results = await Promise.all(entries.map(([, check]) => runCheck(check, timeoutMs)));
        const checks = Object.fromEntries(entries.map(([name], i) => [name, results[i]]));
        const accepting = options.accepting?.() ?? true;
        const ready = accepting && results.every((r) => r.ok);
        sendJson(res, ready ? 200 : 503, {
          ok: ready,
          status: ready ? "ready" : accepting ? "not_ready" : "shutting_down",
          checks,
        });
      },
    },
  ];
}

/** A `/readyz` check for the store: one round trip. */
export function storeCheck(store: { query(text: string): Promise<unknown> }): ReadinessCheck {
  return async () => {
    await store.query("SELECT 1");
  };
}

/** A `/readyz` check for Socket Mode: fails, saying for how long and why, while no connection to Slack is open. */
export function socketCheck(slack: {
  socketStatus(): { connected: boolean; downSince: number | null; lastError: string | null } | null;
}): ReadinessCheck {
  return async () => {
    const status = slack.socketStatus();
    if (!status || status.connected) return;
    const down =
      status.downSince === null ? "" : ` for ${Math.round((Date.now() - status.downSince) / 1000)} s`;
    throw new Error(
      `no Socket Mode connection to Slack${down}: ${status.lastError ?? "connecting"}; reconnecting`,
    );
  };
}
