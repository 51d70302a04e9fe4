import { describe, expect, it } from "vitest";
import { compileEventMapping, DEFAULT_EVENT_MAPPING } from "../../src/supplier/event-mapping.ts";
import { ALT_MAPPING } from "./support/dialects.ts";

const CORRELATION_ID = "0b6f6a4e-8f5c-4a53-9d1e-1a2b3c4d5e6f";
const ours = compileEventMapping(DEFAULT_EVENT_MAPPING);
const alt = compileEventMapping(ALT_MAPPING);

const statusBody = {
  eventId: "evt_1",
  eventType: "ORDER_STATUS",
  createdAt: 1_795_000_000_000,
  order: { correlationId: CORRELATION_ID, documentNumber: "PO-1" },
  status: { code: "PACKED", previous: "PICKED" },
};
const shipmentBody = {
  ...statusBody,
  eventType: "SHIPMENT",
  shipment: {
    parcel: { index: 1, total: 1 },
    carrier: { name: "DHL" },
    tracking: { code: "JD0146", link: "https://track.example/JD0146" },
    state: "IN_TRANSIT",
    items: [{ sku: "LAPTOP-14", qty: 1 }],
  },
};
const shipmentWith = (shipment: Record<string, unknown>) => ({
  ...shipmentBody,
  shipment: { ...shipmentBody.shipment, ...shipment },
});

describe("a body the mapping cannot read", () => {
  it("is not a JSON object", () => {
    for (const body of [[statusBody], "evt", 12, true, null, undefined]) {
      const result = alt.map(body);
      expect(result).toMatchObject({ ok: false });
      expect(result.ok === false && result.reason).toMatch(/^the body is .+, not a JSON object/);
      expect(result).not.toHaveProperty("field");
    }
  });

  it.each([
    [
      "no id at the id path",
      { ...statusBody, eventId: undefined },
      "supplierEvents.fields.id",
      "no value at `eventId` (supplierEvents.fields.id): every event needs an id to be deduplicated by",
    ],
    [
      "no type",
      { ...statusBody, eventType: "  " },
      "supplierEvents.fields.type",
      "no value at `eventType` (supplierEvents.fields.type): an event needs a type",
    ],
    [
      "no time",
      { ...statusBody, createdAt: null },
      "supplierEvents.fields.occurredAt",
      "no value at `createdAt` (supplierEvents.fields.occurredAt): an event needs the time it happened",
    ],
    [
      "a time without an offset",
      { ...statusBody, createdAt: "2026-11-24T09:00:00" },
      "supplierEvents.fields.occurredAt",
      '`createdAt` (supplierEvents.fields.occurredAt) is "2026-11-24T09:00:00", not a time: send ISO 8601 with a UTC offset (2026-11-24T09:00:00+01:00) or Unix seconds or milliseconds',
    ],
    [
      "neither a correlationId nor a document number",
      { ...statusBody, order: {} },
      "supplierEvents.fields.correlationId",
      "no value at `order.correlationId` (supplierEvents.fields.correlationId) and none at `order.documentNumber` (supplierEvents.fields.externalDocumentNumber): an event needs one to find its order",
    ],
    [
      "a correlationId that is not a UUID",
      { ...statusBody, order: { correlationId: "ord-1", documentNumber: "PO-1" } },
      "supplierEvents.fields.correlationId",
      '"ord-1" at `order.correlationId` (supplierEvents.fields.correlationId) is not a UUID, as the correlationId returned at placement is',
    ],
    [
      "a status not in statuses",
      { ...statusBody, status: { code: "RETURNED" } },
      "supplierEvents.statusChanged.status",
      '"RETURNED" at `status.code` (supplierEvents.statusChanged.status) is not a status we know: add it to supplierEvents.statuses, mapped to one of received, validated, in_fulfilment, picked, packed, shipped, partially_shipped, delivered, cancelled',
    ],
    [
      "no status in a status change",
      { ...statusBody, status: undefined },
      "supplierEvents.statusChanged.status",
      "no value at `status.code` (supplierEvents.statusChanged.status): a status change needs its status",
    ],
    [
      "a previous status not in statuses",
      { ...statusBody, status: { code: "PACKED", previous: "packed" } },
      "supplierEvents.statusChanged.previousStatus",
      '"packed" at `status.previous` (supplierEvents.statusChanged.previousStatus) is not a status we know: add it to supplierEvents.statuses, mapped to one of received, validated, in_fulfilment, picked, packed, shipped, partially_shipped, delivered, cancelled',
    ],
    [
      "a reason that is not text",
      { ...statusBody, status: { code: "PACKED", note: { text: "x" } } },
      "supplierEvents.statusChanged.reason",
      "`status.note` (supplierEvents.statusChanged.reason) is an object, not text",
    ],
    [
      "a shipment without a carrier",
      shipmentWith({ carrier: {} }),
      "supplierEvents.shippingUpdated.carrier",
      "no value at `shipment.carrier.name` (supplierEvents.shippingUpdated.carrier): a shipping update needs it",
    ],
    [
      "a shipment without a tracking number",
      shipmentWith({ tracking: [] }),
      "supplierEvents.shippingUpdated.trackingNumber",
      "no value at `shipment.tracking.code` (supplierEvents.shippingUpdated.trackingNumber): a shipping update needs it",
    ],
    [
      "a shipment without a parcel status",
      shipmentWith({ state: null }),
      "supplierEvents.shippingUpdated.status",
      "no value at `shipment.state` (supplierEvents.shippingUpdated.status): a shipping update needs it",
    ],
    [
      "a parcel status not in parcelStatuses",
      shipmentWith({ state: "LOST" }),
      "supplierEvents.shippingUpdated.status",
      '"LOST" at `shipment.state` (supplierEvents.shippingUpdated.status) is not a parcel status we know: add it to supplierEvents.parcelStatuses, mapped to one of shipped, in_transit, out_for_delivery, delivered, exception',
    ],
    [
      "a parcel number that is not a whole number",
      shipmentWith({ parcel: { index: 1.5, total: 2 } }),
      "supplierEvents.shippingUpdated.parcelNumber",
      "`shipment.parcel.index` (supplierEvents.shippingUpdated.parcelNumber) is 1.5, not a whole number",
    ],
    [
      "a parcel count of zero",
      shipmentWith({ parcel: { index: 1, total: "0" } }),
      "supplierEvents.shippingUpdated.parcelCount",
      "`shipment.parcel.total` (supplierEvents.shippingUpdated.parcelCount) is 0; it must be at least 1",
    ],
    [
      "no parcel number",
      shipmentWith({ parcel: { total: 2 } }),
      "supplierEvents.shippingUpdated.parcelNumber",
      "no value at `shipment.parcel.index` (supplierEvents.shippingUpdated.parcelNumber): a shipping update needs it",
    ],
    [
      "a tracking URL that is not a URL",
      shipmentWith({ tracking: { code: "JD0146", link: "track me" } }),
      "supplierEvents.shippingUpdated.trackingUrl",
      '`shipment.tracking.link` (supplierEvents.shippingUpdated.trackingUrl) is "track me", not a URL',
    ],
    [
      "an estimated delivery that is not a date",
      shipmentWith({ eta: "2026-02-30" }),
      "supplierEvents.shippingUpdated.estimatedDelivery",
      '`shipment.eta` (supplierEvents.shippingUpdated.estimatedDelivery) is "2026-02-30", not a date: send YYYY-MM-DD or an ISO 8601 date-time',
    ],
    [
      "lines that are not a list",
      shipmentWith({ items: { sku: "A", qty: 1 } }),
      "supplierEvents.shippingUpdated.lines",
      "`shipment.items` (supplierEvents.shippingUpdated.lines) is an object, not a list of lines",
    ],
    [
      "a line that is not an object",
      shipmentWith({ items: [{ sku: "A", qty: 1 }, "B"] }),
      "supplierEvents.shippingUpdated.lines",
      "line 2 of `shipment.items` (supplierEvents.shippingUpdated.lines) is text, not an object",
    ],
    [
      "a line without an item number",
      shipmentWith({ items: [{ qty: 1 }] }),
      "supplierEvents.shippingUpdated.lineItemNumber",
      "no value at `sku` in line 1 of `shipment.items` (supplierEvents.shippingUpdated.lineItemNumber): every line needs its item number",
    ],
    [
      "a line quantity that is not a whole number",
      shipmentWith({ items: [{ sku: "A", qty: "two" }] }),
      "supplierEvents.shippingUpdated.lineQuantity",
      '`qty` in line 1 of `shipment.items` (supplierEvents.shippingUpdated.lineQuantity) is "two", not a whole number',
    ],
    [
      "an overlong tracking number",
      shipmentWith({ tracking: { code: "x".repeat(501), link: "https://t.example/1" } }),
      "supplierEvents.shippingUpdated.trackingNumber",
      "`shipment.tracking.code` (supplierEvents.shippingUpdated.trackingNumber) is 501 characters long, more than the 500 accepted",
    ],
  ])("%s: says which key and path, with the id when it was read", (_, body, field, reason) => {
    const result = alt.map(body);
    expect(result).toEqual({
      ok: false,
      reason,
      field,
      ...(field !== "supplierEvents.fields.id" && { id: "evt_1" }),
    });
  });

  it("reads in our own format with the default paths named", () => {
    expect(
      ours.map({ id: "e", type: "order.status_changed", occurredAt: "2026-11-24T09:00:00Z", data: {} }),
    ).toEqual({
      ok: false,
      id: "e",
      field: "supplierEvents.fields.correlationId",
      reason:
        "no value at `correlationId` (supplierEvents.fields.correlationId) and none at `externalDocumentNumber` (supplierEvents.fields.externalDocumentNumber): an event needs one to find its order",
    });
  });
});
