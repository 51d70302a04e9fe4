/**
 * Supplier event bodies for the mapping tests: our own format as the sandbox sends it (its own plan and event
 * builders), the same events in the second ("alt") dialect, and the mapping examples/supplier-events.alt.yml
 * holds for that dialect.
 */
import { parse } from "yaml";
import { planFulfilment, toSupplierEvent } from "../../../src/sandbox/fulfilment.ts";
import { createRandom } from "../../../src/sandbox/random.ts";
import { type EventMapping, eventMappingSchema } from "../../../src/supplier/event-mapping.ts";
import type { ShippingUpdatedData, StatusChangedData, SupplierEvent } from "../../../src/supplier/events.ts";
import { validOrder } from "../../../tools/example-order.ts";

const ACCEPTED_AT = Date.parse("2026-03-02T09:00:00Z");

/** Every event of a few sandbox orders (one to three parcels), as JSON bodies, like the deliverer sends them. */
export function sandboxBodies(orders = 12): SupplierEvent[] {
  const bodies: SupplierEvent[] = [];
  for (let n = 0; n < orders; n++) {
    const correlationId = `0b6f7f5e-8a0c-4f53-9a52-${String(n).padStart(12, "0")}`;
    const request = validOrder({
      externalDocumentNumber: `PO-${n}`,
      orderLines: [
        { itemNumber: "LAPTOP-14", quantity: 1 },
        { itemNumber: "DOCK-USB-C", quantity: 2 },
        { itemNumber: "HEADSET", quantity: 1 },
      ],
      ...(n % 2 === 0 && { shipping: { ...validOrder().shipping, deliveryAt: "Office" as const } }),
    });
    const plan = planFulfilment(
      {
        correlationId,
        request,
        acceptedAt: ACCEPTED_AT,
        trackingUrl: ({ number }) => `http://sandbox.test/_sandbox/orders/${correlationId}?parcel=${number}`,
      },
      createRandom("mapping", n, "plan"),
    );
    plan.forEach((step, seq) => {
      const event = toSupplierEvent(
        { correlationId, externalDocumentNumber: `PO-${n}` },
        step,
        seq,
        ACCEPTED_AT + step.offsetMs,
      );
      bodies.push(JSON.parse(JSON.stringify(event)) as SupplierEvent);
    });
  }
  return bodies;
}

const upper = (value: string) => value.toUpperCase();

/** The same event in the alt dialect (EVENTS-CONFIG.md): other names, nested fields, milliseconds. */
export function toAltBody(event: SupplierEvent): Record<string, unknown> {
  const body: Record<string, unknown> = {
    eventId: event.id,
    createdAt: Date.parse(event.occurredAt),
    order: { correlationId: event.correlationId, documentNumber: event.externalDocumentNumber },
  };
  if (event.type === "order.status_changed") {
    const data = event.data as StatusChangedData;
    body.eventType = data.status === "cancelled" ? "ORDER_CANCELLED" : "ORDER_STATUS";
    body.status = {
      code: upper(data.status),
      ...(data.previousStatus && { previous: upper(data.previousStatus) }),
      ...(data.reason && { note: data.reason }),
    };
  } else {
    const data = event.data as ShippingUpdatedData;
    body.eventType = "SHIPMENT";
    body.shipment = {
      parcel: { index: data.parcel.number, total: data.parcel.of },
      carrier: { name: data.carrier },
      tracking: { code: data.trackingNumber, link: data.trackingUrl },
      ...(data.estimatedDelivery && { eta: data.estimatedDelivery }),
      state: upper(data.status),
      ...(data.exceptionReason && { problem: data.exceptionReason }),
      items: data.lines.map((line) => ({
        sku: line.itemNumber,
        qty: line.quantity,
      })),
    };
  }
  return body;
}

/** What examples/supplier-events.alt.yml holds (the block below `supplierEvents:`, signing aside). */
export const ALT_MAPPING_YAML = `
fields:
  id: eventId
  type: eventType
  occurredAt: createdAt
  correlationId: order.correlationId
  externalDocumentNumber: order.documentNumber
statusChanged:
  status: status.code
  previousStatus: status.previous
  reason: status.note
shippingUpdated:
  parcelNumber: shipment.parcel.index
  parcelCount: shipment.parcel.total
  carrier: shipment.carrier.name
  trackingNumber: shipment.tracking.code
  trackingUrl: shipment.tracking.link
  estimatedDelivery: shipment.eta
  status: shipment.state
  exceptionReason: shipment.problem
  lines: shipment.items
  lineItemNumber: sku
  lineQuantity: qty
types:
  ORDER_STATUS: statusChanged
  SHIPMENT: shippingUpdated
  ORDER_CANCELLED: cancelled
statuses:
  RECEIVED: received
  VALIDATED: validated
  IN_FULFILMENT: in_fulfilment
  PICKED: picked
  PACKED: packed
  SHIPPED: shipped
  PARTIALLY_SHIPPED: partially_shipped
  DELIVERED: delivered
  CANCELLED: cancelled
parcelStatuses:
  SHIPPED: shipped
  IN_TRANSIT: in_transit
  OUT_FOR_DELIVERY: out_for_delivery
  DELIVERED: delivered
  EXCEPTION: exception
`;

export const ALT_MAPPING: EventMapping = eventMappingSchema.parse(parse(ALT_MAPPING_YAML));
