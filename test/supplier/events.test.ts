import { describe, expect, it } from "vitest";
import { InvalidSupplierEventError } from "../../src/supplier/errors.ts";
import { parseSupplierEvent } from "../../src/supplier/events.ts";

const base = {
  id: "evt_01",
  occurredAt: "2025-01-15T10:30:00Z",
  correlationId: "3f1c6f0e-9a4b-4c1e-8d2a-0b6f5e4d3c2b",
  externalDocumentNumber: "PO-2025-0001",
};

describe("supplier events", () => {
  it("parses a status change, keeping unknown fields", () => {
    const parsed = parseSupplierEvent({
      ...base,
      type: "order.status_changed",
      data: { status: "shipped", previousStatus: "packed", extra: 1 },
      deliveryAttempt: 2,
    });
    expect(parsed.kind).toBe("status_changed");
    if (parsed.kind !== "status_changed") return;
    expect(parsed.event.data.status).toBe("shipped");
    expect(parsed.event).toMatchObject({ deliveryAttempt: 2, data: { extra: 1 } });
  });

  it("parses a shipping update", () => {
    const parsed = parseSupplierEvent({
      ...base,
      type: "order.shipping_updated",
      data: {
        parcel: { number: 1, of: 2 },
        carrier: "DHL",
        trackingNumber: "JD0146",
        trackingUrl: "https://track.example/JD0146",
        estimatedDelivery: "2025-01-17",
        status: "in_transit",
        lines: [{ itemNumber: "LAPTOP-14", quantity: 1 }],
      },
    });
    expect(parsed.kind).toBe("shipping_updated");
  });

  it("returns unknown types and unreadable data of known types generically, saying why", () => {
    expect(parseSupplierEvent({ ...base, type: "order.invoiced", data: {} })).toMatchObject({
      kind: "unknown",
      issues: [],
    });
    const odd = parseSupplierEvent({ ...base, type: "order.status_changed", data: { status: "returned" } });
    expect(odd.kind).toBe("unknown");
    expect(odd.kind === "unknown" && odd.issues[0]).toMatch(/^data\.status/);
  });

  it("rejects a payload that is not an event at all", () => {
    expect(() => parseSupplierEvent({ ...base, correlationId: "nope", type: "x", data: {} })).toThrow(
      InvalidSupplierEventError,
    );
    expect(() => parseSupplierEvent("hello")).toThrow(InvalidSupplierEventError);
  });
  it("requires the correlationId of our own contract unless told an externalDocumentNumber suffices", () => {
    const { correlationId: _, ...byDocument } = base;
    const event = { ...byDocument, type: "order.status_changed", data: { status: "packed" } };
    expect(() => parseSupplierEvent(event)).toThrow(/correlationId/);
    expect(parseSupplierEvent(event, { orderBy: "either" })).toMatchObject({
      kind: "status_changed",
      event: { externalDocumentNumber: "PO-2025-0001" },
    });
    const { externalDocumentNumber: __, ...neither } = event;
    expect(() => parseSupplierEvent(neither, { orderBy: "either" })).toThrow(/correlationId/);
    expect(() =>
      parseSupplierEvent({ ...neither, externalDocumentNumber: "  " }, { orderBy: "either" }),
    ).toThrow(InvalidSupplierEventError);
  });

  it("reads a shipping update without a tracking URL or lines", () => {
    const parsed = parseSupplierEvent({
      ...base,
      type: "order.shipping_updated",
      data: { parcel: { number: 1, of: 1 }, carrier: "DHL", trackingNumber: "JD0146", status: "shipped" },
    });
    expect(parsed.kind).toBe("shipping_updated");
    expect(parsed.kind === "shipping_updated" && parsed.event.data).toMatchObject({ lines: [] });
    expect(parsed.kind === "shipping_updated" && "trackingUrl" in parsed.event.data).toBe(false);
  });
});
