/**
 * The supplier's webhook events. The spec shows neither names nor payloads; this is our contract
 * (ARCHITECTURE.md, docs/supplier-contract.md), and `parseSupplierEvent` is the one adapter to change when the
 * supplier publishes theirs. Unknown fields are kept; unknown event types are returned generically, not rejected,
 * so that a new event kind at the supplier never makes our webhook endpoint fail.
 */
import { z } from "zod";
import { InvalidSupplierEventError } from "./errors.ts";
import { correlationIdSchema } from "./schema.ts";

/** States the supplier reports, in the order an order normally moves through them. */
export const SUPPLIER_ORDER_STATES = [
  "received",
  "validated",
  "in_fulfilment",
  "picked",
  "packed",
  "shipped",
  "partially_shipped",
  "delivered",
  "cancelled",
] as const;
export type SupplierOrderState = (typeof SUPPLIER_ORDER_STATES)[number];

/** Approval states of ours (src/orders/approvals/): waiting for an approver, then approved (→ queued) or final. */
export const APPROVAL_STATES = ["awaiting_approval", "rejected_by_approver", "approval_expired"] as const;

/**
 * Supplier states plus our own: `queued` (stored, not yet sent), `placing` (request in flight), `failed`, and the
 * approval states.
 */
export const ORDER_STATES = [
  ...SUPPLIER_ORDER_STATES,
  "queued",
  "placing",
  "failed",
  ...APPROVAL_STATES,
] as const;
export type OrderState = (typeof ORDER_STATES)[number];
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
  awaiting_approval: -1,
  rejected_by_approver: -1,
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

export function isOrderState(value: unknown): value is OrderState {
  return typeof value === "string" && Object.hasOwn(RANK, value);
}

/** True when `next` may replace `current` (it is at least as far along). */
export function isNewerOrEqualStatus(current: OrderState, next: OrderState): boolean {
  return RANK[next] >= RANK[current];
}

export const TERMINAL_ORDER_STATES: ReadonlySet<OrderState> = new Set<OrderState>(["delivered", "cancelled"]);

export const orderStateSchema = z.enum(ORDER_STATES);
export const supplierOrderStateSchema = z.enum(SUPPLIER_ORDER_STATES);

export const supplierEventSchema = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  occurredAt: z.iso.datetime({ offset: true }),
  correlationId: correlationIdSchema,
  externalDocumentNumber: z.string().optional(),
  data: z.looseObject({}),
});
export type SupplierEvent = z.infer<typeof supplierEventSchema>;

export const STATUS_CHANGED = "order.status_changed";
export const SHIPPING_UPDATED = "order.shipping_updated";

export const statusChangedDataSchema = z.looseObject({
  status: supplierOrderStateSchema,
  previousStatus: supplierOrderStateSchema.optional(),
  reason: z.string().optional(),
});
export type StatusChangedData = z.infer<typeof statusChangedDataSchema>;

export const PARCEL_STATUSES = [
  "shipped",
  "in_transit",
  "out_for_delivery",
  "delivered",
  "exception",
] as const;
export type ParcelStatus = (typeof PARCEL_STATUSES)[number];

export const shippingUpdatedDataSchema = z.looseObject({
  parcel: z.object({ number: z.int().min(1), of: z.int().min(1) }),
  carrier: z.string(),
  trackingNumber: z.string(),
  trackingUrl: z.url(),
  estimatedDelivery: z.iso.date().optional(),
  status: z.enum(PARCEL_STATUSES),
  lines: z.array(z.looseObject({ itemNumber: z.string(), quantity: z.int().min(0) })),
  exceptionReason: z.string().optional(),
});
export type ShippingUpdatedData = z.infer<typeof shippingUpdatedDataSchema>;

export const statusChangedEventSchema = supplierEventSchema.extend({
  type: z.literal(STATUS_CHANGED),
  data: statusChangedDataSchema,
});
export type StatusChangedEvent = z.infer<typeof statusChangedEventSchema>;

export const shippingUpdatedEventSchema = supplierEventSchema.extend({
  type: z.literal(SHIPPING_UPDATED),
  data: shippingUpdatedDataSchema,
});
export type ShippingUpdatedEvent = z.infer<typeof shippingUpdatedEventSchema>;

export type ParsedSupplierEvent =
  | { kind: "status_changed"; event: StatusChangedEvent }
  | { kind: "shipping_updated"; event: ShippingUpdatedEvent }
  /**
   * Any other type, or a known type whose `data` does not match our schema (e.g. a status we do not know yet):
   * store it and show it generically. `issues` says why it was not recognised (empty for an unknown type).
   */
  | { kind: "unknown"; event: SupplierEvent; issues: string[] };

function describe(error: z.ZodError): string[] {
  return error.issues.map(
    (issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`,
  );
}

/**
 * Parses an already JSON-decoded webhook body. Throws `InvalidSupplierEventError` when it is not an event at all
 * (the receiver should answer 400); otherwise returns the typed event or the generic one.
 */
export function parseSupplierEvent(json: unknown): ParsedSupplierEvent {
  const base = supplierEventSchema.safeParse(json);
  if (!base.success) throw new InvalidSupplierEventError(describe(base.error));
  const event = base.data;
  if (event.type === STATUS_CHANGED) {
    const typed = statusChangedEventSchema.safeParse(json);
    if (typed.success) return { kind: "status_changed", event: typed.data };
    return { kind: "unknown", event, issues: describe(typed.error) };
  }
  if (event.type === SHIPPING_UPDATED) {
    const typed = shippingUpdatedEventSchema.safeParse(json);
    if (typed.success) return { kind: "shipping_updated", event: typed.data };
    return { kind: "unknown", event, issues: describe(typed.error) };
  }
  return { kind: "unknown", event, issues: [] };
}
