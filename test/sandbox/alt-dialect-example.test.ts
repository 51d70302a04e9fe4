/**
 * examples/supplier-events.alt.yml against the events the sandbox really sends in the alt dialect: its signing is
 * the dialect's, and reading each alt event through its paths and maps gives back our event, field for field.
 * (The paths are read here with a plain dotted-path walk; the mapping schema itself is tested where it lives.)
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ALT_DIALECT_SIGNING, toAltEvent } from "../../src/sandbox/dialect.ts";
import { startSandbox } from "../../src/sandbox/sandbox.ts";
import type { ShippingUpdatedData, StatusChangedData, SupplierEvent } from "../../src/supplier/events.ts";
import { webhookSigningSchema } from "../../src/supplier/webhook-signing.ts";
import { createOrder, dispatcher, KEY, validOrder, waitFor } from "./support.ts";

afterAll(() => dispatcher.close());

const example = parse(
  readFileSync(new URL("../../examples/supplier-events.alt.yml", import.meta.url), "utf8"),
) as Record<string, Record<string, string>>;
const section = (name: string): Record<string, string> => example[name] ?? {};
const fields = section("fields");
const statusChanged = section("statusChanged");
const shippingUpdated = section("shippingUpdated");
const types = section("types");
const statuses = section("statuses");
const parcelStatuses = section("parcelStatuses");

function at(value: unknown, path: string | undefined): unknown {
  if (path === undefined) return undefined;
  return path
    .split(".")
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
}

/** Our event's fields as the example's paths read them from the alt event. */
function readBack(alt: Record<string, unknown>) {
  const kind = types[at(alt, fields.type) as string];
  const head = {
    id: at(alt, fields.id),
    occurredAt: at(alt, fields.occurredAt),
    correlationId: at(alt, fields.correlationId),
    externalDocumentNumber: at(alt, fields.externalDocumentNumber),
  };
  if (kind === "shippingUpdated") {
    const s = shippingUpdated;
    const items = at(alt, s.lines) as unknown[];
    return {
      kind,
      head,
      data: {
        parcel: { number: at(alt, s.parcelNumber), of: at(alt, s.parcelCount) },
        carrier: at(alt, s.carrier),
        trackingNumber: at(alt, s.trackingNumber),
        trackingUrl: at(alt, s.trackingUrl),
        estimatedDelivery: at(alt, s.estimatedDelivery),
        status: parcelStatuses[at(alt, s.status) as string],
        lines: items.map((item) => ({
          itemNumber: at(item, s.lineItemNumber),
          quantity: at(item, s.lineQuantity),
        })),
      },
    };
  }
  const s = statusChanged;
  const previous = at(alt, s.previousStatus) as string | undefined;
  return {
    kind,
    head,
    data: {
      status: statuses[at(alt, s.status) as string],
      ...(previous !== undefined && { previousStatus: statuses[previous] }),
      ...(at(alt, s.reason) !== undefined && { reason: at(alt, s.reason) }),
    },
  };
}

function expectMapsBack(event: SupplierEvent) {
  const back = readBack(toAltEvent(event));
  expect(back.head).toEqual({
    id: event.id,
    occurredAt: Date.parse(event.occurredAt),
    correlationId: event.correlationId,
    externalDocumentNumber: event.externalDocumentNumber,
  });
  expect(back.kind).toBe(event.type === "order.shipping_updated" ? "shippingUpdated" : "statusChanged");
  expect(back.data).toEqual(event.data);
}

describe("examples/supplier-events.alt.yml", () => {
  it("holds exactly the supplierEvents keys, and its signing is the alt dialect's", () => {
    expect(Object.keys(example)).toEqual([
      "signing",
      "fields",
      "statusChanged",
      "shippingUpdated",
      "types",
      "statuses",
      "parcelStatuses",
    ]);
    expect(webhookSigningSchema.parse(example.signing)).toEqual(ALT_DIALECT_SIGNING);
  });

  it("reads every event the sandbox plays back into our event, field for field", async () => {
    const sandbox = await startSandbox({ apiKeys: [KEY], speed: 60_000, seed: 11 });
    try {
      const ids: string[] = [];
      for (const deliveryAt of ["Office", "Home"] as const) {
        const order = validOrder();
        const answer = await createOrder(sandbox.url, {
          ...order,
          shipping: { ...order.shipping, deliveryAt },
        });
        ids.push(answer.json.data.correlationId);
      }
      for (const id of ids) {
        const order = await waitFor(async () => {
          const o = await sandbox.order(id);
          return o?.status === "delivered" && o;
        });
        for (const record of order.events) expectMapsBack(record.event);
      }
    } finally {
      await sandbox.close();
    }
  });

  it("maps a cancellation with its reason, and a parcel exception with its problem", () => {
    const base = {
      id: "evt_000000000000000000000002",
      occurredAt: "2026-11-18T11:06:40.123+00:00",
      correlationId: "0b9f0c8e-3c1e-4d8e-9a4b-6f1f2a3b4c5d",
      externalDocumentNumber: "PO-2",
    };
    const cancelled = {
      ...base,
      type: "order.status_changed",
      data: {
        status: "cancelled",
        previousStatus: "packed",
        reason: "Customer asked",
      } satisfies StatusChangedData,
    };
    expect(types[toAltEvent(cancelled).eventType as string]).toBe("cancelled");
    expect(readBack(toAltEvent(cancelled)).data).toEqual(cancelled.data);
    const exception: ShippingUpdatedData = {
      parcel: { number: 1, of: 1 },
      carrier: "GLS",
      trackingNumber: "123",
      trackingUrl: "https://track.example/123",
      status: "exception",
      exceptionReason: "Damaged in transit",
      lines: [{ itemNumber: "A", quantity: 1 }],
    };
    const alt = toAltEvent({ ...base, type: "order.shipping_updated", data: exception });
    expect(readBack(alt).data).toMatchObject({ status: "exception" });
    expect(at(alt, shippingUpdated.exceptionReason)).toBe("Damaged in transit");
  });
});
