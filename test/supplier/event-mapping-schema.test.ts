import { describe, expect, it } from "vitest";
import {
  DEFAULT_EVENT_MAPPING,
  describeMapping,
  eventMappingSchema,
} from "../../src/supplier/event-mapping.ts";
import { compilePath } from "../../src/supplier/json-path.ts";
import { ALT_MAPPING } from "./support/dialects.ts";

/** The problems as the customer file's loader lists them: `key: message`. */
function problems(input: unknown): string[] {
  const parsed = eventMappingSchema.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("the mapping's defaults", () => {
  it("are today's format when nothing is given, and each key not given keeps its default", () => {
    expect(DEFAULT_EVENT_MAPPING.fields).toEqual({
      id: "id",
      type: "type",
      occurredAt: "occurredAt",
      correlationId: "correlationId",
      externalDocumentNumber: "externalDocumentNumber",
    });
    expect(DEFAULT_EVENT_MAPPING.types).toEqual({
      "order.status_changed": "statusChanged",
      "order.shipping_updated": "shippingUpdated",
    });
    expect(DEFAULT_EVENT_MAPPING.statuses.partially_shipped).toBe("partially_shipped");
    expect(DEFAULT_EVENT_MAPPING.parcelStatuses.out_for_delivery).toBe("out_for_delivery");
    const partial = eventMappingSchema.parse({
      fields: { id: "eventId" },
      shippingUpdated: { carrier: "carrier.name" },
    });
    expect(partial.fields).toEqual({ ...DEFAULT_EVENT_MAPPING.fields, id: "eventId" });
    expect(partial.shippingUpdated).toEqual({
      ...DEFAULT_EVENT_MAPPING.shippingUpdated,
      carrier: "carrier.name",
    });
    expect(partial.statusChanged).toEqual(DEFAULT_EVENT_MAPPING.statusChanged);
  });

  it("replaces a map given as a whole, so only the supplier's own names are read", () => {
    expect(eventMappingSchema.parse({ types: { SHIPMENT: "shippingUpdated" } }).types).toEqual({
      SHIPMENT: "shippingUpdated",
    });
  });
});

describe("a mapping that cannot be used", () => {
  it.each([
    [
      "",
      "fields.id: an empty path names nothing: write a dotted path such as `order.id` or a JSON Pointer such as `/order/id`",
    ],
    [
      ".id",
      "fields.id: `.id` is not a path: it starts with a dot; write a dotted path such as `order.id` or a JSON Pointer such as `/order/id`",
    ],
    [
      "order.",
      "fields.id: `order.` is not a path: it ends with a dot; write a dotted path such as `order.id` or a JSON Pointer such as `/order/id`",
    ],
    [
      "order..id",
      "fields.id: `order..id` is not a path: it has two dots in a row (a key containing a dot needs a JSON Pointer)",
    ],
    [
      "/order/~2",
      "fields.id: `/order/~2` is not a path: in a JSON Pointer `~` must be followed by 0 (for `~`) or 1 (for `/`)",
    ],
    [
      "/order/id~",
      "fields.id: `/order/id~` is not a path: in a JSON Pointer `~` must be followed by 0 (for `~`) or 1 (for `/`)",
    ],
    [
      "order/id",
      "fields.id: `order/id` is not a path: a JSON Pointer starts with `/` (e.g. `/order/id`); a dotted path has no `/` (a key containing `/` needs a JSON Pointer, with `/` written `~1`)",
    ],
    [
      "#/order/id",
      "fields.id: `#/order/id` is not a path: write a JSON Pointer without the leading `#`, e.g. `/order/id`",
    ],
    [" order.id", "fields.id: ` order.id` is not a path: it starts or ends with a space"],
    [
      12,
      "fields.id: expected a path: a dotted path such as `order.id` or a JSON Pointer such as `/order/id`",
    ],
  ])("refuses the path %j, naming the key", (path, problem) => {
    expect(problems({ fields: { id: path } })).toEqual([problem]);
  });

  it("refuses a path deeper than any event we accept", () => {
    expect(problems({ fields: { type: Array.from({ length: 65 }, () => "a").join(".") } })[0]).toMatch(
      /^fields\.type: `a\.a\.a.*…` is not a path: it has more than 64 segments/,
    );
    expect(problems({ fields: { type: Array.from({ length: 64 }, () => "a").join(".") } })).toEqual([]);
  });

  it("refuses null where every event needs the value, and both order references null", () => {
    expect(problems({ fields: { type: null } })).toEqual([
      "fields.type: expected a path: a dotted path such as `order.id` or a JSON Pointer such as `/order/id`",
    ]);
    expect(problems({ fields: { correlationId: null, externalDocumentNumber: null } })).toEqual([
      "fields.correlationId: correlationId and externalDocumentNumber cannot both be null: an event needs one of them to find its order",
    ]);
    expect(problems({ fields: { correlationId: null } })).toEqual([]);
  });

  it("names an unknown milestone, state or parcel status and lists the allowed ones", () => {
    expect(
      problems({
        types: { SHIPMENT: "shipped_update", ORDER_RETURNED: "returned" },
        statuses: { DONE: "complete" },
        parcelStatuses: { LOST: "lost" },
      }),
    ).toEqual([
      'types.SHIPMENT: "shipped_update" is not a milestone: use statusChanged, shippingUpdated or one of our order states (received, validated, in_fulfilment, picked, packed, shipped, partially_shipped, delivered, cancelled)',
      'types.ORDER_RETURNED: "returned" is not a milestone: use statusChanged, shippingUpdated or one of our order states (received, validated, in_fulfilment, picked, packed, shipped, partially_shipped, delivered, cancelled)',
      'statuses.DONE: "complete" is not one of our order states: use received, validated, in_fulfilment, picked, packed, shipped, partially_shipped, delivered, cancelled',
      'parcelStatuses.LOST: "lost" is not a parcel status: use shipped, in_transit, out_for_delivery, delivered, exception',
    ]);
  });

  it("refuses unknown keys", () => {
    expect(problems({ field: {}, fields: { eventId: "id" } })).toEqual([
      'fields: Unrecognized key: "eventId"',
      ': Unrecognized key: "field"',
    ]);
  });
});

describe("paths", () => {
  it("compile into their keys, JSON Pointer escapes decoded", () => {
    const keys = (text: string) => {
      const compiled = compilePath(text);
      return compiled.ok ? compiled.path.keys : compiled.problem;
    };
    expect(keys("a.b.0.c")).toEqual(["a", "b", "0", "c"]);
    expect(keys("/a/b~1c/~0d/0")).toEqual(["a", "b/c", "~d", "0"]);
    expect(keys("/")).toEqual([""]);
    expect(keys("/a//b")).toEqual(["a", "", "b"]);
  });
});

describe("the mapping in words", () => {
  it("says which path is read for what, and what the supplier's names mean", () => {
    const words = describeMapping(ALT_MAPPING);
    expect(words).toContain("Event id: `eventId`");
    expect(words).toContain("ORDER_CANCELLED → status cancelled");
    expect(words).toContain(
      "correlationId at `order.correlationId`, else externalDocumentNumber at `order.documentNumber`",
    );
    expect(words).toContain("RECEIVED → received");
    expect(words).toContain("lines `shipment.items` (each: item number `sku`, quantity `qty`)");
    const hashed = describeMapping(eventMappingSchema.parse({ fields: { id: null } }));
    expect(hashed).toContain("none read; deliveries are told apart by a hash of the body");
    expect(hashed).toContain("statuses: our own names");
  });
});
