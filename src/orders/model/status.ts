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

/**
 * Our approval statuses (src/orders/approvals/): waiting for an approver, then approved (→ `queued`), or ended
 * without placement: rejected by an approver, or expired. Never sent to the supplier.
 */
export const APPROVAL_STATES = ["awaiting_approval", "rejected_by_approver", "approval_expired"] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** Supplier states plus our own. */
export const ORDER_STATES = [...SUPPLIER_ORDER_STATES, ...LOCAL_ORDER_STATES, ...APPROVAL_STATES] as const;
export type OrderState = SupplierOrderState | LocalOrderState | ApprovalState;
/** Alias: the status field of an order or of a status event. */
export type OrderStatus = OrderState;

/**
 * Progress rank used so that an older event never overwrites a newer status: apply a status only when its rank
 * is ≥ the current one (ties broken by `occurredAt`). `failed` ranks below `received` because a placement we
 * gave up on (e.g. a timeout) may still have reached the supplier, whose events then win. `partially_shipped`
 * ranks below `shipped`. `delivered` and `cancelled` are terminal.
 */
const RANK: Record<OrderState, number> = {
  // Never sent to the supplier, so no supplier event can meet them; below `queued`, which approval leads to.
  awaiting_approval: -3,
  rejected_by_approver: -2,
  approval_expired: -1,
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

/** `awaiting_approval`, or a final `rejected_by_approver` / `approval_expired`: not placed, never sent. */
export function isApprovalState(status: string): status is ApprovalState {
  return (APPROVAL_STATES as readonly string[]).includes(status);
}

export const orderStateSchema = z.enum(ORDER_STATES);
