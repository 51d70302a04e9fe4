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
});
