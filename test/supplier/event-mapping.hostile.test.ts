import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileEventMapping,
  DEFAULT_EVENT_MAPPING,
  describeShape,
  eventMappingSchema,
  type MapResult,
} from "../../src/supplier/event-mapping.ts";
import { parseSupplierEvent } from "../../src/supplier/events.ts";
import { ALT_MAPPING } from "./support/dialects.ts";

const CORRELATION_ID = "0b6f6a4e-8f5c-4a53-9d1e-1a2b3c4d5e6f";
const ours = compileEventMapping(DEFAULT_EVENT_MAPPING);
const alt = compileEventMapping(ALT_MAPPING);

const statusBody = () => ({
  eventId: "evt_1",
  eventType: "ORDER_STATUS",
  createdAt: 1_795_000_000_000,
  order: { correlationId: CORRELATION_ID, documentNumber: "PO-1" },
  status: { code: "PACKED" },
});
const shipmentBody = () => ({
  ...statusBody(),
  eventType: "SHIPMENT",
  shipment: {
    parcel: { index: 1, total: 1 },
    carrier: { name: "DHL" },
    tracking: { code: "JD0146" },
    state: "SHIPPED",
    items: [{ sku: "LAPTOP-14", qty: 1 }],
  },
});

const reasonOf = (result: MapResult) => (result.ok ? "mapped" : result.reason);

describe("hostile bodies", () => {
  it("read arrays and nulls where objects are expected as nothing there", () => {
    expect(reasonOf(alt.map({ ...statusBody(), order: [CORRELATION_ID, "PO-1"] }))).toMatch(
      /^no value at `order\.correlationId`/,
    );
    expect(reasonOf(alt.map({ ...statusBody(), order: null }))).toMatch(
      /^no value at `order\.correlationId`/,
    );
    expect(reasonOf(alt.map({ ...statusBody(), status: ["PACKED"] }))).toMatch(/^no value at `status\.code`/);
    expect(reasonOf(alt.map({ ...shipmentBody(), shipment: null }))).toMatch(
      /^no value at `shipment\.parcel\.index`/,
    );
    expect(reasonOf(alt.map({ ...shipmentBody(), shipment: [] }))).toMatch(
      /^no value at `shipment\.parcel\.index`/,
    );
    expect(
      reasonOf(
        ours.map({
          id: "e",
          type: "order.status_changed",
          occurredAt: "2026-11-24T09:00:00Z",
          correlationId: CORRELATION_ID,
          data: null,
        }),
      ),
    ).toMatch(/^no value at `data\.status`/);
  });

  it("never read inherited properties: __proto__, constructor, toString, a string's length", () => {
    const inherited = {
      ...statusBody(),
      order: Object.create({ correlationId: CORRELATION_ID, documentNumber: "PO-1" }),
    };
    expect(reasonOf(alt.map(inherited))).toMatch(/^no value at `order\.correlationId`/);
    const literal = { __proto__: { eventType: "ORDER_STATUS" }, ...statusBody(), eventType: undefined };
    expect(reasonOf(alt.map(literal))).toMatch(/^no value at `eventType`/);
    const odd = compileEventMapping(
      eventMappingSchema.parse({
        ...ALT_MAPPING,
        fields: { ...ALT_MAPPING.fields, id: "constructor.name", type: "__proto__.type" },
        statusChanged: { status: "status.code.length", reason: "toString" },
      }),
    );
    expect(reasonOf(odd.map(statusBody()))).toMatch(/^no value at `constructor\.name`/);
    // A body's own "__proto__" key (JSON.parse makes it an own property) is the supplier's field like any other.
    const own = JSON.parse(
      JSON.stringify({ ...statusBody(), id: "x" }).replace('"id":"x"', '"__proto__":{"type":"ORDER_STATUS"}'),
    );
    expect(reasonOf(odd.map({ ...own, constructor: { name: "evt_c" } }))).toMatch(
      /^no value at `status\.code\.length`/,
    );
    expect(({} as { type?: unknown }).type).toBeUndefined();
  });

  it("refuse a 1 MB string at any identifier's path without quoting it", () => {
    const huge = "x".repeat(1_048_576);
    for (const body of [
      { ...statusBody(), eventId: huge },
      { ...statusBody(), eventType: huge },
      { ...statusBody(), status: { code: huge } },
      { ...statusBody(), order: { documentNumber: huge } },
    ]) {
      const reason = reasonOf(alt.map(body));
      expect(reason).toMatch(/is 1048576 characters long, more than the 500 accepted$/);
      expect(reason.length).toBeLessThan(200);
    }
  });

  it("keep a 1 MB reason or carrier whole: the replies cut it short, not the mapping", () => {
    const huge = "x".repeat(1_048_576);
    const carrier = alt.map({
      ...shipmentBody(),
      shipment: { ...shipmentBody().shipment, carrier: { name: huge } },
    });
    expect(carrier).toMatchObject({ ok: true, event: { data: { carrier: huge } } });
    const reason = alt.map({ ...statusBody(), status: { code: "CANCELLED", note: huge } });
    expect(reason).toMatchObject({ ok: true, event: { data: { reason: huge } } });
  });

  it("read a value nested 64 deep, and survive a body nested far deeper", () => {
    const path = Array.from({ length: 63 }, (_, i) => `l${i}`);
    let deep: Record<string, unknown> = { type: "ORDER_STATUS" };
    for (let i = path.length - 1; i >= 0; i--) deep = { [path[i] as string]: deep };
    const deepType = compileEventMapping(
      eventMappingSchema.parse({
        ...ALT_MAPPING,
        fields: { ...ALT_MAPPING.fields, type: [...path, "type"].join(".") },
      }),
    );
    expect(reasonOf(deepType.map({ ...statusBody(), ...deep }))).toBe("mapped");

    let abyss: unknown = "bottom";
    for (let i = 0; i < 100_000; i++) abyss = { status: abyss };
    expect(reasonOf(alt.map({ ...statusBody(), status: abyss }))).toMatch(/`status\.code`/);
    expect(describeShape(abyss).fields.length).toBeGreaterThan(0);
  });

  it("read numbers sent as text, and refuse NaN-ish values", () => {
    const ok = alt.map({
      ...shipmentBody(),
      eventId: 42,
      createdAt: "1795000000000",
      shipment: {
        ...shipmentBody().shipment,
        parcel: { index: "2", total: "3" },
        items: [{ sku: 7, qty: "4" }],
      },
    });
    expect(ok).toMatchObject({
      ok: true,
      event: { id: "42", data: { parcel: { number: 2, of: 3 }, lines: [{ itemNumber: "7", quantity: 4 }] } },
    });
    const infinity = JSON.parse('{"createdAt": 1e400}').createdAt;
    for (const createdAt of ["NaN", "Infinity", "-1", 0, -5, infinity, "1e12", 9e15, "", true, {}]) {
      expect(reasonOf(alt.map({ ...statusBody(), createdAt }))).toMatch(
        /^(no value at|`createdAt` .* not a time)/,
      );
    }
    for (const index of ["1e0", "0x1", "1.0", 1.5, -1, 0, 2 ** 60, "99999999999999999999", true, [1]]) {
      expect(
        reasonOf(
          alt.map({
            ...shipmentBody(),
            shipment: { ...shipmentBody().shipment, parcel: { index, total: 1 } },
          }),
        ),
      ).toMatch(
        /^`shipment\.parcel\.index` \(supplierEvents\.shippingUpdated\.parcelNumber\) is .*(not a whole number|at least 1)$/,
      );
    }
  });
});

const KEYS = [
  "eventId",
  "eventType",
  "createdAt",
  "order",
  "status",
  "shipment",
  "id",
  "type",
  "occurredAt",
  "correlationId",
  "data",
];
const nearMiss = fc.dictionary(fc.constantFrom(...KEYS), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 8 });
const plausible = fc.record(
  {
    eventId: fc.oneof(fc.string(), fc.integer()),
    eventType: fc.constantFrom("ORDER_STATUS", "SHIPMENT", "ORDER_CANCELLED", "OTHER"),
    createdAt: fc.oneof(fc.integer(), fc.string(), fc.double()),
    order: fc.record(
      { correlationId: fc.oneof(fc.uuid(), fc.string()), documentNumber: fc.string() },
      { requiredKeys: [] },
    ),
    status: fc.record(
      { code: fc.constantFrom("PACKED", "SHIPPED", "LOST", ""), previous: fc.jsonValue({ maxDepth: 1 }) },
      { requiredKeys: [] },
    ),
    shipment: fc.record(
      {
        parcel: fc.record({ index: fc.jsonValue({ maxDepth: 1 }), total: fc.jsonValue({ maxDepth: 1 }) }),
        carrier: fc.record({ name: fc.jsonValue({ maxDepth: 1 }) }),
        tracking: fc.record(
          { code: fc.string(), link: fc.oneof(fc.webUrl(), fc.string()) },
          { requiredKeys: [] },
        ),
        eta: fc.oneof(
          fc.string(),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        ),
        state: fc.constantFrom("SHIPPED", "IN_TRANSIT", "DELIVERED", "LOST"),
        items: fc.oneof(
          fc.array(fc.record({ sku: fc.jsonValue({ maxDepth: 1 }), qty: fc.jsonValue({ maxDepth: 1 }) })),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

function checkResult(result: MapResult): void {
  if (result.ok) {
    const parsed = parseSupplierEvent(result.event, { orderBy: "either" });
    expect(parsed.kind).toBe(result.kind);
  } else {
    expect(result.reason.length).toBeGreaterThan(0);
    expect(result.reason.length).toBeLessThan(1000);
    expect(result.reason).not.toMatch(/mapped event is not valid/);
  }
}

describe("properties", () => {
  it("map never throws on any JSON value, and what it maps always parses as the kind it says", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), nearMiss, plausible), (body) => {
        for (const mapper of [ours, alt]) checkResult(mapper.map(body));
      }),
      { numRuns: 600 },
    );
  });

  const leaves = fc.oneof(
    fc.string({ minLength: 1 }).map((s) => `SECRET-${s}`),
    fc.integer({ min: 100_000_000 }),
    fc.boolean(),
    fc.constant(null),
  );
  const shaped = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, leaves, tie("object"), tie("array")),
    object: fc.dictionary(fc.constantFrom("a", "b", "items", "order", "x"), tie("value"), { maxKeys: 4 }),
    array: fc.array(tie("value"), { maxLength: 3 }),
  })).object;

  it("describeShape never shows a value: the output is the same with every value replaced", () => {
    const blank = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(blank);
      if (value && typeof value === "object")
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, blank(v)]));
      return typeof value === "string" ? "" : typeof value === "number" ? 0 : value;
    };
    fc.assert(
      fc.property(shaped, (body) => {
        const shape = describeShape(body);
        const text = JSON.stringify(shape);
        expect(text).not.toContain("SECRET-");
        expect(JSON.stringify(shape.fields)).not.toMatch(/[0-9]/);
        expect(describeShape(blank(body))).toEqual(shape);
        expect(describeShape(body)).toEqual(shape);
      }),
      { numRuns: 300 },
    );
  });

  it("describeShape gives one key to bodies of one shape, whatever their lists' lengths, and another to another shape", () => {
    const one = describeShape({ id: "a", shipment: { items: [{ sku: "x", qty: 1 }] } });
    const same = describeShape({
      shipment: {
        items: [
          { qty: 9, sku: "y" },
          { sku: "z", qty: 2 },
        ],
      },
      id: "b",
    });
    const other = describeShape({ id: "a", shipment: { items: [{ sku: "x", qty: "1" }] } });
    expect(same.key).toBe(one.key);
    expect(other.key).not.toBe(one.key);
    expect(one.fields).toEqual([
      { path: "id", type: "string" },
      { path: "shipment", type: "object" },
      { path: "shipment.items", type: "array" },
      { path: "shipment.items[]", type: "object" },
      { path: "shipment.items[].sku", type: "string" },
      { path: "shipment.items[].qty", type: "number" },
    ]);
    expect(describeShape([1, "a"]).fields).toEqual([
      { path: "(body)", type: "array" },
      { path: "(body)[]", type: "number" },
      { path: "(body)[]", type: "string" },
    ]);
  });

  it("describeShape lists at most 60 fields and says how many more, and hides keys too long to be names", () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, i]));
    const shape = describeShape({ ...wide, ["k".repeat(200)]: 1 });
    expect(shape.fields).toHaveLength(60);
    expect(shape.more).toBe(41);
    expect(JSON.stringify(describeShape({ ["k".repeat(200)]: 1 }))).not.toContain("kkkk");
  });
});
