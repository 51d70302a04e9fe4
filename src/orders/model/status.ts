/**
 * An order's status: the supplier's states (as the contract names them, supplier/events.ts) plus our own, and
 * the rule that orders them. The rule lives here, not in the store: the repository only hands the ranked list
 * to SQL so that "only forward" runs in one statement.
 */
import { z } from "zod";
import { SUPPLIER_ORDER_STATES, type SupplierOrderState } from "../../supplier/events.ts";

export type { SupplierOrderState } from "../../supplier/events.ts";

/** Our own statuses: `queued` (stored, not yet sent), `placing` (request in flight), `failed` (see failure.ts). */
export const LOCAL_ORDER_STATES = ["queued", "placing", "failed"] as const;
export type LocalOrderState = (typeof LOCAL_ORDER_STATES)[number];

/** Supplier states plus our own. */
export const ORDER_STATES = [...SUPPLIER_ORDER_STATES, ...LOCAL_ORDER_STATES] as const;
export type OrderState = SupplierOrderState | LocalOrderState;
/** Alias: the status field of an order or of a status event. */
export type OrderStatus = OrderState;

/**
 * Progress rank used so that an older event never overwrites a newer status: apply a status only when its rank
 * is ≥ the current one (ties broken by `occurredAt`). `failed` ranks below `received` because a placement we
 * gave up on (e.g. a timeout) may still have reached the supplier, whose events then win. `partially_shipped`
 * ranks below `shipped`. `delivered` and `cancelled` are terminal.
 */
const RANK: Record<OrderState, number> = {
  queued: 0,
  placing: 1,
  failed: 2,
  received: 3,
  validated: 4,
  in_fulfilment: 5,
  picked: 6,
  packed: 7,
  partially_shipped: 8,
  shipped: 9,
  delivered: 10,
  cancelled: 11,
};

export function statusRank(status: OrderState): number {
  return RANK[status];
}

/** Every status, lowest rank first: what the repository hands to SQL for the "only forward" rule. */
export const RANKED_ORDER_STATES: readonly OrderState[] = [...ORDER_STATES].sort(
  (a, b) => statusRank(a) - statusRank(b),
);

export function isOrderState(value: unknown): value is OrderState {
  return typeof value === "string" && Object.hasOwn(RANK, value);
}

/** True for our own statuses: any supplier status replaces them, whatever its time. */
export function isLocalState(status: OrderState): status is LocalOrderState {
  return (LOCAL_ORDER_STATES as readonly string[]).includes(status);
}

/** True when `next` may replace `current` (it is at least as far along). */
export function isNewerOrEqualStatus(current: OrderState, next: OrderState): boolean {
  return RANK[next] >= RANK[current];
}

export const TERMINAL_ORDER_STATES: ReadonlySet<OrderState> = new Set<OrderState>(["delivered", "cancelled"]);

/** True once the supplier says the order is over (delivered or cancelled): nothing moves it on. */
export function isTerminal(status: OrderState): boolean {
  return TERMINAL_ORDER_STATES.has(status);
}

export const orderStateSchema = z.enum(ORDER_STATES);
