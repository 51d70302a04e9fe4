/**
 * `/healthz`: the process answers (liveness: restart me if not). `/readyz`: its dependencies answer
 * (readiness: send me traffic). They differ on purpose: a database outage makes us unready, which takes the
 * replica out of the load balancer, but must not make an orchestrator restart every replica in a loop.
 *
 * The public port serves both without details (a load balancer needs the status code only); the operations
 * listener (`OPS_HTTP_HOST`/`OPS_HTTP_PORT`, loopback by default) adds each check's result and latency. Neither
 * ever shows an error's message (a database error names its host and port, a URL may hold credentials): a check
 * reports a code such as `ECONNREFUSED`, and the message goes to the log when the check starts failing.
 */
import { type Logger, pino } from "pino";
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
  /** Where a check's failure (with its message) and its recovery are logged. */
  logger?: Logger;
}

export interface CheckResult {
  ok: boolean;
  ms: number;
  /** Why it failed, without the error's message: a code (`ECONNREFUSED`, a SQLSTATE) or a timeout. */
  error?: string;
}

export interface ReadinessReport {
  ready: boolean;
  status: "ready" | "not_ready" | "shutting_down";
  checks: Record<string, CheckResult>;
}

/** Runs the checks for every `/readyz` it backs (public and operations), logging each check's state changes. */
export interface Readiness {
  check(): Promise<ReadinessReport>;
}

class CheckTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** An error's code when it is one (`ECONNREFUSED`, `57P01`, `UND_ERR_CONNECT_TIMEOUT`), never its message. */
function reasonOf(error: unknown): string {
  if (error instanceof CheckTimeout) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Z0-9_]{2,40}$/.test(code)) return code;
  return "failed (see the log)";
}

async function runCheck(
  check: ReadinessCheck,
  timeoutMs: number,
): Promise<CheckResult & { cause?: unknown }> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new CheckTimeout(timeoutMs));
    }, timeoutMs);
  });
  try {
    await Promise.race([check(controller.signal), timeout]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, ms: Math.round(performance.now() - started), error: reasonOf(error), cause: error };
  } finally {
    clearTimeout(timer);
  }
}

export function createReadiness(options: HealthOptions): Readiness {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const logger = options.logger ?? pino({ level: "silent" });
  const failing = new Set<string>();
  return {
    async check() {
      const entries = Object.entries(options.checks);
      const results = await Promise.all(entries.map(([, check]) => runCheck(check, timeoutMs)));
      const checks: Record<string, CheckResult> = {};
      entries.forEach(([name], i) => {
        const { cause, ...result } = results[i]!;
        checks[name] = result;
        // Once per outage, not per probe: load balancers ask every few seconds.
        if (!result.ok && !failing.has(name)) {
          failing.add(name);
          logger.warn({ check: name, err: cause }, "readiness check failing");
        } else if (result.ok && failing.delete(name)) {
          logger.info({ check: name }, "readiness check passing again");
        }
      });
      const accepting = options.accepting?.() ?? true;
      const ready = accepting && results.every((r) => r.ok);
      return { ready, status: ready ? "ready" : accepting ? "not_ready" : "shutting_down", checks };
    },
  };
}

export interface HealthRouteOptions {
  /** Include each check's result and latency in `/readyz` (the operations listener). Default false. */
  details?: boolean;
}

/** `/healthz` and `/readyz` over `readiness` (or over checks of their own). */
export function healthRoutes(source: Readiness | HealthOptions, options: HealthRouteOptions = {}): Route[] {
  const readiness = "check" in source ? source : createReadiness(source);
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
        const report = await readiness.check();
        sendJson(res, report.ready ? 200 : 503, {
          ok: report.ready,
          status: report.status,
          ...(options.details ? { checks: report.checks } : {}),
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
