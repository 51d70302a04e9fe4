import { describe, expect, it } from "vitest";
import { statusRank } from "../../src/orders/model/status.ts";
import { eventId, type PlannedEvent, planFulfilment, toSupplierEvent } from "../../src/sandbox/fulfilment.ts";
import { createRandom } from "../../src/sandbox/random.ts";
import { parseSupplierEvent } from "../../src/supplier/events.ts";
import { checkOrderRequest } from "../../src/supplier/rules.ts";
import type { CreateOrderRequest } from "../../src/supplier/schema.ts";
import { validOrder } from "./support.ts";

const ACCEPTED_AT = Date.parse("2026-03-02T09:00:00Z"); // a Monday
const CORRELATION_ID = "0b6f7f5e-8a0c-4f53-9a52-2f4f3b1f0c11";

function request(overrides: Parameters<typeof validOrder>[0] = {}): CreateOrderRequest {
  const checked = checkOrderRequest(validOrder(overrides));
  if (!checked.ok) throw new Error(JSON.stringify(checked.details));
  return checked.value;
}

function plan(req: CreateOrderRequest, seed: string | number = 1): PlannedEvent[] {
  return planFulfilment(
    {
      correlationId: CORRELATION_ID,
      request: req,
      acceptedAt: ACCEPTED_AT,
      trackingUrl: ({ number }) => `http://sandbox.test/_sandbox/orders/${CORRELATION_ID}?parcel=${number}`,
    },
    createRandom(seed, "default", req.externalDocumentNumber, "plan"),
  );
}

const statuses = (steps: PlannedEvent[]) =>
  steps.flatMap((step) => (step.type === "order.status_changed" ? [step.data.status] : []));

describe("fulfilment plan", () => {
  it("moves an order through received → validated → in_fulfilment → picked → packed → shipped → delivered", () => {
    const steps = plan(request({ orderLines: [{ itemNumber: "LAPTOP-14", quantity: 1 }] }));
    expect(statuses(steps)).toEqual([
      "received",
      "validated",
      "in_fulfilment",
      "picked",
      "packed",
      "shipped",
      "delivered",
    ]);
    const parcels = steps.flatMap((s) => (s.type === "order.shipping_updated" ? [s.data.status] : []));
    expect(parcels).toEqual(["shipped", "out_for_delivery", "delivered"]);
  });

  it("keeps offsets non-decreasing, statuses never going backwards, and each previousStatus right", () => {
    for (let seed = 0; seed < 50; seed++) {
      const steps = plan(request(), seed);
      let previous: string | undefined;
      for (let i = 1; i < steps.length; i++) {
        expect((steps[i] as PlannedEvent).offsetMs).toBeGreaterThanOrEqual(
          (steps[i - 1] as PlannedEvent).offsetMs,
        );
      }
      for (const step of steps) {
        if (step.type !== "order.status_changed") continue;
        expect(step.data.previousStatus).toBe(previous);
        if (previous !== undefined) {
          expect(statusRank(step.data.status)).toBeGreaterThan(statusRank(previous as "received"));
        }
        previous = step.data.status;
      }
      expect(previous).toBe("delivered");
      expect(steps[steps.length - 1]?.type).toBe("order.status_changed");
    }
  });

  it("splits several lines into parcels (partially_shipped first), each parcel with every field, lines shipped once", () => {
    const req = request();
    let split = 0;
    for (let seed = 0; seed < 60; seed++) {
      const steps = plan(req, seed);
      const shipped = steps.flatMap((s) =>
        s.type === "order.shipping_updated" && s.data.status === "shipped" ? [s.data] : [],
      );
      const of = shipped[0]?.parcel.of ?? 0;
      expect(shipped.map((p) => p.parcel)).toEqual(
        Array.from({ length: of }, (_, i) => ({ number: i + 1, of })),
      );
      const units = shipped.flatMap((p) => p.lines).reduce((sum, l) => sum + l.quantity, 0);
      expect(units).toBe(4);
      for (const parcel of shipped) {
        expect(parcel.lines.length).toBeGreaterThan(0);
        expect(parcel.carrier).toMatch(/\S/);
        expect(parcel.trackingNumber).toMatch(/^[0-9A-Z]{10,20}$/);
        expect(parcel.trackingUrl).toContain(`parcel=${parcel.parcel.number}`);
        expect(parcel.estimatedDelivery).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
      if (of > 1) {
        split++;
        expect(statuses(steps)).toContain("partially_shipped");
        expect(statuses(steps).indexOf("partially_shipped")).toBeLessThan(statuses(steps).indexOf("shipped"));
      } else {
        expect(statuses(steps)).not.toContain("partially_shipped");
      }
    }
    expect(split).toBeGreaterThan(5);
    expect(split).toBeLessThan(55);
  });

  it("never ships lines with quantity 0", () => {
    const steps = plan(
      request({
        orderLines: [
          { itemNumber: "A", quantity: 0 },
          { itemNumber: "B", quantity: 3 },
        ],
      }),
    );
    const lines = steps.flatMap((s) => (s.type === "order.shipping_updated" ? s.data.lines : []));
    expect(lines.every((line) => line.itemNumber === "B")).toBe(true);
  });

  it("is repeatable under a seed and differs between seeds", () => {
    const req = request();
    expect(plan(req, 42)).toEqual(plan(req, 42));
    const trackingNumbers = (steps: PlannedEvent[]) =>
      steps.flatMap((s) => (s.type === "order.shipping_updated" ? [s.data.trackingNumber] : []));
    expect(trackingNumbers(plan(req, 42))).not.toEqual(trackingNumbers(plan(req, 43)));
  });

  it("takes about 40 minutes at speed 1 and estimates delivery on a business day after acceptance", () => {
    for (let seed = 0; seed < 20; seed++) {
      const steps = plan(request({ orderLines: [{ itemNumber: "A", quantity: 1 }] }), seed);
      const total = (steps[steps.length - 1] as PlannedEvent).offsetMs;
      expect(total).toBeGreaterThan(25 * 60_000);
      expect(total).toBeLessThan(50 * 60_000);
      const eta = steps.flatMap((s) =>
        s.type === "order.shipping_updated" ? [s.data.estimatedDelivery] : [],
      )[0];
      const date = new Date(`${eta}T12:00:00Z`);
      expect(date.getTime()).toBeGreaterThan(ACCEPTED_AT);
      expect([0, 6]).not.toContain(date.getUTCDay());
    }
  });

  it("chooses express carriers for offices and parcel services for homes", () => {
    const carriers = (deliveryAt: "Office" | "Home") =>
      new Set(
        Array.from({ length: 30 }, (_, seed) => {
          const base = request();
          const steps = plan({ ...base, shipping: { ...base.shipping, deliveryAt } }, seed);
          return steps.flatMap((s) => (s.type === "order.shipping_updated" ? [s.data.carrier] : []))[0];
        }),
      );
    expect([...carriers("Office")].every((c) => ["DHL Express", "UPS", "FedEx"].includes(c as string))).toBe(
      true,
    );
    expect([...carriers("Home")].every((c) => ["DPD", "PostNL", "GLS", "UPS"].includes(c as string))).toBe(
      true,
    );
  });

  it("turns every step into an event our contract parses as a known type, with ids stable per step", () => {
    const req = request();
    const steps = plan(req, 7);
    steps.forEach((step, seq) => {
      const event = toSupplierEvent(
        { correlationId: CORRELATION_ID, externalDocumentNumber: "PO-1" },
        step,
        seq,
        ACCEPTED_AT,
      );
      const parsed = parseSupplierEvent(JSON.parse(JSON.stringify(event)));
      expect(parsed.kind).not.toBe("unknown");
      expect(event.id).toBe(eventId(CORRELATION_ID, seq));
      expect(event.id).toMatch(/^evt_[0-9a-f]{24}$/);
    });
    expect(new Set(steps.map((_, seq) => eventId(CORRELATION_ID, seq))).size).toBe(steps.length);
  });
});
