/**
 * Faults the sandbox injects on `POST /orders/create`, for tests, demos and the reliability suite. Changeable
 * while running (`SandboxHandle.setFaults`). Decisions draw from the run's seeded generator, so a seed replays
 * which calls fail.
 */

export interface Faults {
  /** Share of create calls (0–1) answered INTERNAL_SERVER_ERROR before anything is stored. */
  failRate: number;
  /** Added before every create call is answered. */
  latencyMs: number;
  /** Every create call gets a plain-text 503 with `Retry-After: 1`, as from a load balancer whose back end is down. */
  outage: boolean;
  /** Every create call's connection is destroyed on arrival, before anything is stored. */
  resetConnections: boolean;
  /**
   * The order is placed, then the connection is destroyed instead of answering: the caller cannot know whether
   * it went through (a retry must come back DUPLICATE_ORDER).
   */
  resetAfterPlacing: boolean;
}

export const NO_FAULTS: Faults = {
  failRate: 0,
  latencyMs: 0,
  outage: false,
  resetConnections: false,
  resetAfterPlacing: false,
};

/** Validates a partial update; throws a RangeError naming the bad field. */
export function mergeFaults(current: Faults, update: Partial<Faults>): Faults {
  const next = { ...current, ...update };
  if (!(next.failRate >= 0 && next.failRate <= 1)) throw new RangeError("failRate must be between 0 and 1");
  if (!(Number.isFinite(next.latencyMs) && next.latencyMs >= 0)) {
    throw new RangeError("latencyMs must be a number of milliseconds ≥ 0");
  }
  return next;
}
