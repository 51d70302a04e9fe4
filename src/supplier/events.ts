/**
 * The supplier's webhook events in canonical form. The spec shows neither names nor payloads; this is our own
 * contract (ARCHITECTURE.md, docs/supplier-contract.md), which is also what a configured mapping of the
 * supplier's real events produces (event-mapping.ts). Unknown fields are kept; unknown event types are returned
 * generically, not rejected, so that a new event kind at the supplier never makes our webhook endpoint fail.
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

const eventEnvelope = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  occurredAt: z.iso.datetime({ offset: true }),
  correlationId: correlationIdSchema.optional(),
  externalDocumentNumber: z.string().optional(),
  data: z.looseObject({}),
});

/** A mapped supplier may name the order by its document number alone; one of the two must be there. */
const namesItsOrder = (event: {
  correlationId?: string | undefined;
  externalDocumentNumber?: string | undefined;
}) => event.correlationId !== undefined || (event.externalDocumentNumber ?? "").trim() !== "";
const NAMES_NO_ORDER = {
  message: "an event needs a correlationId (UUID) or an externalDocumentNumber to find its order",
  path: ["correlationId"],
};

/** The canonical event: what `parseSupplierEvent(json, { orderBy: "either" })` accepts. */
export const supplierEventSchema = eventEnvelope.refine(namesItsOrder, NAMES_NO_ORDER);
export type SupplierEventCanonical = z.infer<typeof supplierEventSchema>;
/** An event of our own contract, as our sandbox sends it: it always names its order by correlationId. */
export type SupplierEvent = SupplierEventCanonical & { correlationId: string };

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
  /** Optional: a supplier may send none; the reply then shows the carrier and number as text. */
  trackingUrl: z.url().optional(),
  estimatedDelivery: z.iso.date().optional(),
  status: z.enum(PARCEL_STATUSES),
  lines: z.array(z.looseObject({ itemNumber: z.string(), quantity: z.int().min(0) })).default([]),
  exceptionReason: z.string().optional(),
});
export type ShippingUpdatedData = z.infer<typeof shippingUpdatedDataSchema>;

export const statusChangedEventSchema = eventEnvelope
  .extend({ type: z.literal(STATUS_CHANGED), data: statusChangedDataSchema })
  .refine(namesItsOrder, NAMES_NO_ORDER);
export type StatusChangedEvent = z.infer<typeof statusChangedEventSchema>;

export const shippingUpdatedEventSchema = eventEnvelope
  .extend({ type: z.literal(SHIPPING_UPDATED), data: shippingUpdatedDataSchema })
  .refine(namesItsOrder, NAMES_NO_ORDER);
export type ShippingUpdatedEvent = z.infer<typeof shippingUpdatedEventSchema>;

/**
 * `Order` narrows how the event names its order: `{ correlationId: string }` for our own contract (the default of
 * `parseSupplierEvent`), nothing for a canonical event that may carry only an externalDocumentNumber.
 */
export type ParsedSupplierEvent<Order = unknown> =
  | { kind: "status_changed"; event: StatusChangedEvent & Order }
  | { kind: "shipping_updated"; event: ShippingUpdatedEvent & Order }
  /**
   * Any other type, or a known type whose `data` does not match our schema (e.g. a status we do not know yet):
   * store it and show it generically. `issues` says why it was not recognised (empty for an unknown type).
   */
  | { kind: "unknown"; event: SupplierEventCanonical & Order; issues: string[] };

function describe(error: z.ZodError): string[] {
  return error.issues.map(
    (issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`,
  );
}

export interface ParseOptions {
  /**
   * `"either"`: also accept an event that names its order by externalDocumentNumber alone (a mapped supplier's
   * event, a stored event being rendered). Without it the correlationId is required, as our own contract says.
   */
  orderBy: "either";
}

/**
 * Parses an already JSON-decoded webhook body. Throws `InvalidSupplierEventError` when it is not an event at all
 * (the receiver should answer 400); otherwise returns the typed event or the generic one.
 */
export function parseSupplierEvent(json: unknown, options: ParseOptions): ParsedSupplierEvent;
export function parseSupplierEvent(json: unknown): ParsedSupplierEvent<{ correlationId: string }>;
export function parseSupplierEvent(json: unknown, options?: ParseOptions): ParsedSupplierEvent {
  const base = supplierEventSchema.safeParse(json);
  if (!base.success) throw new InvalidSupplierEventError(describe(base.error));
  const event = base.data;
  if (options?.orderBy !== "either" && event.correlationId === undefined) {
    throw new InvalidSupplierEventError(["correlationId: required (a UUID naming the order)"]);
  }
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
