import { describe, expect, it } from "vitest";
import {
  compileEventMapping,
  DEFAULT_EVENT_MAPPING,
  type EventMappingInput,
  eventMappingSchema,
  hashBody,
  type MapResult,
} from "../../src/supplier/event-mapping.ts";
import { parseSupplierEvent } from "../../src/supplier/events.ts";
import { ALT_MAPPING, sandboxBodies, toAltBody } from "./support/dialects.ts";

const CORRELATION_ID = "0b6f6a4e-8f5c-4a53-9d1e-1a2b3c4d5e6f";
const ours = compileEventMapping(DEFAULT_EVENT_MAPPING);
const alt = compileEventMapping(ALT_MAPPING);
const mapperOf = (input: EventMappingInput) => compileEventMapping(eventMappingSchema.parse(input));

function mapped(result: MapResult) {
  if (!result.ok) throw new Error(`expected a mapped event, got: ${result.reason}`);
  return result;
}

const status = (data: Record<string, unknown> = { status: "packed", previousStatus: "picked" }) => ({
  id: "evt_1",
  type: "order.status_changed",
  occurredAt: "2026-11-24T09:00:00+00:00",
  correlationId: CORRELATION_ID,
  externalDocumentNumber: "PO-1",
  data,
});

const shipment = (overrides: Record<string, unknown> = {}) => ({
  eventId: "evt_9",
  eventType: "SHIPMENT",
  createdAt: 1_795_000_000_000,
  order: { correlationId: CORRELATION_ID, documentNumber: "PO-1" },
  shipment: {
    parcel: { index: 1, total: 2 },
    carrier: { name: "DHL" },
    tracking: { code: "JD0146", link: "https://track.example/JD0146" },
    eta: "2026-12-03",
    state: "IN_TRANSIT",
    items: [{ sku: "LAPTOP-14", qty: 1 }],
    ...overrides,
  },
});

describe("the default mapping", () => {
  const bodies = sandboxBodies();

  it("maps every event the sandbox sends exactly as parseSupplierEvent reads it", () => {
    expect(new Set(bodies.map((b) => (b.data as { status: string }).status)).size).toBeGreaterThan(8);
    expect(bodies.some((b) => (b.data as { parcel?: { of: number } }).parcel?.of === 3)).toBe(true);
    for (const body of bodies) {
      const result = mapped(ours.map(body));
      const parsed = parseSupplierEvent(body);
      expect(result.kind).toBe(parsed.kind);
      expect(result.event).toEqual(parsed.event);
    }
  });

  it("keeps a type it does not name readable, with its data as received (the whole body when it has none)", () => {
    const body = { ...status(), type: "order.invoiced", data: { amount: 12 } };
    const result = mapped(ours.map(body));
    expect(result.kind).toBe("unknown");
    expect(result.event).toMatchObject({ type: "order.invoiced", id: "evt_1", data: { amount: 12 } });
    expect(parseSupplierEvent(result.event, { orderBy: "either" }).kind).toBe("unknown");
    const { data: _, ...bare } = body;
    expect(mapped(ours.map(bare)).event).toMatchObject({ data: bare });
  });

  it("finds the order by its document number alone", () => {
    const { correlationId: _, ...body } = status();
    const result = mapped(ours.map(body));
    expect(result.event.correlationId).toBeUndefined();
    expect(result.event.externalDocumentNumber).toBe("PO-1");
  });
});

describe("the alt dialect with its example mapping", () => {
  it("maps every sandbox event to the same canonical event, its time normalised", () => {
    for (const body of sandboxBodies()) {
      const result = mapped(alt.map(toAltBody(body)));
      const expected = parseSupplierEvent(body);
      expect(result.kind).toBe(expected.kind);
      expect(result.event).toEqual({
        ...expected.event,
        occurredAt: new Date(body.occurredAt).toISOString(),
      });
    }
  });

  it("reads a type that means a state by itself as a status change to it", () => {
    const result = mapped(
      alt.map({
        eventId: "evt_2",
        eventType: "ORDER_CANCELLED",
        createdAt: 1_795_000_000,
        order: { documentNumber: "PO-1" },
        status: { previous: "PACKED", note: " Out of stock " },
      }),
    );
    expect(result.event).toEqual({
      id: "evt_2",
      type: "order.status_changed",
      occurredAt: new Date(1_795_000_000_000).toISOString(),
      externalDocumentNumber: "PO-1",
      data: { status: "cancelled", previousStatus: "packed", reason: "Out of stock" },
    });
  });

  it("reads a shipment with numbers and dates as text, an ETA with a time, and no URL or lines", () => {
    const result = mapped(
      alt.map(
        shipment({
          parcel: { index: "2", total: " 2 " },
          tracking: { code: 1234567890 },
          eta: "2026-12-03T18:00:00+01:00",
          items: null,
          problem: "",
        }),
      ),
    );
    expect(result.event.data).toEqual({
      parcel: { number: 2, of: 2 },
      carrier: "DHL",
      trackingNumber: "1234567890",
      estimatedDelivery: "2026-12-03",
      status: "in_transit",
      lines: [],
    });
  });

  it("reads times as ISO 8601 with an offset, Unix seconds or milliseconds, as numbers or text", () => {
    const at = (createdAt: unknown) => {
      const result = alt.map({ ...shipment(), createdAt });
      return result.ok ? result.event.occurredAt : result.reason;
    };
    expect(at(1_795_000_000)).toBe("2026-11-18T11:06:40.000Z");
    expect(at(1_795_000_000_000)).toBe("2026-11-18T11:06:40.000Z");
    expect(at("1795000000")).toBe("2026-11-18T11:06:40.000Z");
    expect(at("1795000000.5")).toBe("2026-11-18T11:06:40.500Z");
    expect(at("2026-11-18T12:06:40+01:00")).toBe("2026-11-18T12:06:40+01:00");
    expect(at("2026-11-18T11:06:40Z")).toBe("2026-11-18T11:06:40Z");
  });

  it("reads the same paths written as JSON Pointers, escapes included", () => {
    const pointer = mapperOf({
      ...ALT_MAPPING,
      fields: { ...ALT_MAPPING.fields, id: "/meta/event~1id", externalDocumentNumber: "/order/doc~0no" },
      shippingUpdated: { ...ALT_MAPPING.shippingUpdated, lines: "/shipment/items", lineItemNumber: "/sku" },
    });
    const body = { ...shipment(), meta: { "event/id": "evt_p" }, order: { "doc~no": "PO-9" } };
    const result = mapped(pointer.map(body));
    expect(result.event).toMatchObject({ id: "evt_p", externalDocumentNumber: "PO-9" });
    expect(result.event.data).toMatchObject({ lines: [{ itemNumber: "LAPTOP-14", quantity: 1 }] });
  });

  it("indexes lists with numeric segments", () => {
    const indexed = mapperOf({ ...ALT_MAPPING, fields: { ...ALT_MAPPING.fields, id: "refs.1.id" } });
    const body = { ...shipment(), refs: [{ id: "a" }, { id: "b" }] };
    expect(mapped(indexed.map(body)).event.id).toBe("b");
    expect(indexed.map({ ...body, refs: { 1: { id: "c" } } })).toMatchObject({
      ok: true,
      event: { id: "c" },
    });
  });
});

describe("without an id path", () => {
  const hashed = mapperOf({ fields: { id: null } });
  const { id: _, ...body } = status();

  it("names the event by the hash of the body it was given, or of the body as JSON", () => {
    const raw = JSON.stringify(body);
    expect(mapped(hashed.map(body, { bodyHash: hashBody(Buffer.from(raw)) })).event.id).toBe(
      `sha256:${hashBody(raw)}`,
    );
    expect(mapped(hashed.map(body)).event.id).toBe(`sha256:${hashBody(raw)}`);
  });

  it("still gives that id with a body it cannot read", () => {
    expect(hashed.map({ ...body, type: undefined }, { bodyHash: "ab" })).toMatchObject({
      ok: false,
      id: "sha256:ab",
      field: "supplierEvents.fields.type",
    });
  });
});

describe("a parcel count the supplier does not send", () => {
  it("reads every update as parcel 1 of 1 when the parcel paths are null", () => {
    const single = mapperOf({
      ...ALT_MAPPING,
      shippingUpdated: { ...ALT_MAPPING.shippingUpdated, parcelNumber: null, parcelCount: null },
    });
    expect(mapped(single.map(shipment({ parcel: undefined }))).event.data).toMatchObject({
      parcel: { number: 1, of: 1 },
    });
  });
});
