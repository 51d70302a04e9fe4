/**
 * Faults the sandbox injects on `POST /orders/create`, and fulfilment that goes wrong (an estimate that slips, an
 * order that stalls), for tests, demos and the reliability suite. Changeable while running
 * (`SandboxHandle.setFaults`); a fulfilment fault applies to the orders accepted after it is set (an order's plan is
 * fixed at acceptance). Decisions draw from the run's seeded generator, so a seed replays which calls fail.
 */

/**
 * Which orders a fulfilment fault applies to: an order matches when one of its lines has this item number, or when
 * this is its externalDocumentNumber or its customerReference (the ticket). Compared exactly.
 */
export type OrderMatch = string;

export interface LateDelivery {
  match: OrderMatch;
  /**
   * Business days the order's estimate slips by: the parcels' `shipped` updates give their usual estimates, then
   * at one moment every parcel under way gets an update (`in_transit`) with the order's latest usual estimate plus
   * this many business days, one date for the whole order (fulfilment.ts). Default 3.
   */
  slipDays?: number;
  /** At a later moment every parcel under way gets its usual estimate back (`in_transit` again). Default false. */
  recovers?: boolean;
}

export interface Stall {
  match: OrderMatch;
  /**
   * `true`: accepted, then not a single event (not even `received`). Default false: accepted, `received`,
   * `validated`, `in_fulfilment`, then nothing: never shipped.
   */
  silent?: boolean;
}

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
  /** Orders whose estimated delivery slips after shipping (and maybe recovers). The first match wins. */
  late: readonly LateDelivery[];
  /** Orders accepted and then never shipped. Wins over `late`. */
  stall: readonly Stall[];
}

export const NO_FAULTS: Faults = {
  failRate: 0,
  latencyMs: 0,
  outage: false,
  resetConnections: false,
  resetAfterPlacing: false,
  late: [],
  stall: [],
};

export const DEFAULT_SLIP_DAYS = 3;
const MAX_SLIP_DAYS = 60;

/** What an accepted order's fulfilment does differently, decided once at acceptance (stored with its plan). */
export interface FulfilmentFault {
  late?: { slipDays: number; recovers: boolean };
  stall?: { silent: boolean };
}

/** The fulfilment fault of an order being accepted under `faults`; undefined when it plays normally. */
export function fulfilmentFaultOf(
  faults: Pick<Faults, "late" | "stall">,
  order: {
    externalDocumentNumber: string;
    customerReference?: string | null | undefined;
    orderLines: ReadonlyArray<{ itemNumber: string }>;
  },
): FulfilmentFault | undefined {
  const matches = (match: OrderMatch) =>
    match === order.externalDocumentNumber ||
    (order.customerReference != null && match === order.customerReference) ||
    order.orderLines.some((line) => line.itemNumber === match);
  const stall = faults.stall.find((rule) => matches(rule.match));
  if (stall) return { stall: { silent: stall.silent === true } };
  const late = faults.late.find((rule) => matches(rule.match));
  if (late) {
    return { late: { slipDays: late.slipDays ?? DEFAULT_SLIP_DAYS, recovers: late.recovers === true } };
  }
  return undefined;
}

function checkMatch(field: string, match: unknown): void {
  if (typeof match !== "string" || match.trim() === "") {
    throw new RangeError(
      `${field}: each rule needs a match (an item number, an externalDocumentNumber or a customerReference)`,
    );
  }
}

/** Validates a partial update; throws a RangeError naming the bad field. */
export function mergeFaults(current: Faults, update: Partial<Faults>): Faults {
  const next = { ...current, ...update };
  if (!(next.failRate >= 0 && next.failRate <= 1)) throw new RangeError("failRate must be between 0 and 1");
  if (!(Number.isFinite(next.latencyMs) && next.latencyMs >= 0)) {
    throw new RangeError("latencyMs must be a number of milliseconds ≥ 0");
  }
  if (!Array.isArray(next.late)) throw new RangeError("late must be a list of rules");
  if (!Array.isArray(next.stall)) throw new RangeError("stall must be a list of rules");
  for (const rule of next.late) {
    checkMatch("late", rule?.match);
    const days = rule.slipDays ?? DEFAULT_SLIP_DAYS;
    if (!(Number.isInteger(days) && days >= 1 && days <= MAX_SLIP_DAYS)) {
      throw new RangeError(
        `late: slipDays must be a whole number of business days from 1 to ${MAX_SLIP_DAYS}`,
      );
    }
  }
  for (const rule of next.stall) checkMatch("stall", rule?.match);
  return { ...next, late: [...next.late], stall: [...next.stall] };
}
