/**
 * The supplier's webhook events. The spec shows neither names nor payloads; this is our contract
 * (ARCHITECTURE.md, docs/supplier-contract.md), and `parseSupplierEvent` is the one adapter to change when the
 * supplier publishes theirs. Unknown fields are kept; unknown event types are returned generically, not rejected,
 * so that a new event kind at the supplier never makes our webhook endpoint fail.
 */
import { z } from "zod";
import { InvalidSupplierEventError } from "./errors.ts";
import { correlationIdSchema } from "./schema.ts";

/**
 * States the supplier reports, as the contract names them, in the order an order normally moves through them.
 * An order's status model (these plus our own states, their ranking, terminal-ness) is the domain's:
 * orders/model/status.ts.
 */
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
