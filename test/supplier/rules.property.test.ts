/**
 * Property tests: requests generated to the schema's shape pass our checks, and breaking any single rule fails
 * with exactly that rule's supplier path (no more, no less).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COUNTRIES, isCountryCode } from "../../src/supplier/countries.ts";
import { checkOrderRequest } from "../../src/supplier/rules.ts";
import { MAX_ORDER_LINES } from "../../src/supplier/schema.ts";

// biome-ignore lint/suspicious/noExplicitAny: the tests edit arbitrary JSON documents
type Draft = any;

const codes = Object.keys(COUNTRIES);
const text = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0);
const optionalText = fc.option(fc.string({ maxLength: 20 }), { nil: null });
const phone = fc
  .tuple(
    fc.integer({ min: 1, max: 9 }),
    fc.array(fc.tuple(fc.constantFrom("", " ", "-"), fc.integer({ min: 0, max: 9 })), {
      minLength: 6,
      maxLength: 14,
    }),
  )
  .map(([first, rest]) => `+${first}${rest.map(([sep, d]) => `${sep}${d}`).join("")}`);
const contact = fc.record({ firstName: text, lastName: text, phoneNumber: phone, email: fc.emailAddress() });

/** An address whose country is valid, with a state whenever the country needs one. */
const address = fc.constantFrom(...codes).chain((countryIso2) =>
  fc.record({
    address1: text,
    address2: optionalText,
    city: text,
    zipCode: text,
    countryIso2: fc.constant(countryIso2),
    stateName: countryIso2 === "US" || countryIso2 === "AU" ? text : optionalText,
  }),
);

const invoice = fc.oneof(
  fc.record({ id: text }),
  fc
    .tuple(text, address, optionalText)
    .map(([id, a, companyName]) => ({ id, companyName, vatNumber: null, ...a })),
);
const consignee = fc.oneof(
  fc.constant(null),
  fc.record({ id: text }),
  fc.tuple(text, address).map(([companyName, a]) => ({ companyName, ...a })),
);
const sellTo = fc.option(
  fc
    .tuple(text, address, contact)
    .map(([companyName, a, c]) => ({ id: null, companyName, contact: c, ...a })),
  { nil: undefined },
);
const shipping = fc
  .tuple(address, contact, fc.constantFrom("Office", "Home"), optionalText, optionalText)
  .map(([a, c, deliveryAt, attention, reference]) => ({
    id: null,
    companyName: deliveryAt === "Office" ? "Acme" : null,
    deliveryAt,
    contact: c,
    attention,
    reference,
    ...a,
  }));
const line = fc.record({
  itemNumber: text,
  quantity: fc.nat({ max: 1000 }),
  customerReference: optionalText,
  comments: optionalText,
  lineRef1: optionalText,
  lineRef2: optionalText,
  lineRef3: optionalText,
  lineRef4: optionalText,
});
const orderLines = fc
  .array(line, { minLength: 1, maxLength: 8 })
  .chain((lines) =>
    fc
      .nat({ max: lines.length - 1 })
      .map((i) => lines.map((l, j) => (j === i ? { ...l, quantity: Math.max(1, l.quantity) } : l))),
  );

const validRequest = fc
  .record({
    externalDocumentNumber: text,
    type: fc.option(fc.constantFrom("New", "Replacement"), { nil: undefined }),
    customerReference: optionalText,
    invoice,
    consignee,
    sellTo,
    shipping,
    orderLines,
  })
  .map((r) => JSON.parse(JSON.stringify(r)) as Draft); // drop undefined, like a JSON body

const badCountry = fc
  .oneof(fc.stringMatching(/^[A-Z]{2}$/), fc.constantFrom("UK", "EU", "gb", "us", "USA", "", " G"))
  .filter((c) => !isCountryCode(c));

type Mutation = (order: Draft) => string;

/** Sets (or, given `undefined`, deletes) one dotted field; returns the supplier path that must then fail. */
function setField(field: string, value: unknown, expected: string): Mutation {
  return (order) => {
    const keys = field.split(".");
    const last = keys.pop() as string;
    let target = order;
    for (const key of keys) target = target[key];
    if (value === undefined) delete target[last];
    else target[last] = value;
    return expected;
  };
}

const mutations: Record<string, fc.Arbitrary<Mutation>> = {
  "blank invoice id": fc.constantFrom("", " ", "\t").map((id) => setField("invoice.id", id, "Invoice.Id")),
  "missing invoice id": fc.constant(setField("invoice.id", undefined, "Invoice.Id")),
  "bad shipping country": badCountry.map((c) => setField("shipping.countryIso2", c, "Shipping.CountryIso2")),
  "bad invoice country": badCountry.map((c) => setField("invoice.countryIso2", c, "Invoice.CountryIso2")),
  "bad consignee country": badCountry.map((c) => (o) => {
    o.consignee = { companyName: "W", address1: "1 St", city: "C", zipCode: "1", countryIso2: c };
    return "Consignee.CountryIso2";
  }),
  "bad sell-to country": badCountry.map((c) => (o) => {
    o.sellTo = { ...(o.sellTo ?? {}), countryIso2: c };
    return "SellTo.CountryIso2";
  }),
  "no order lines": fc.constant(setField("orderLines", [], "OrderLines")),
  "no positive quantity": fc.constant((o) => {
    for (const l of o.orderLines) l.quantity = 0;
    return "OrderLines";
  }),
  "too many lines": fc.integer({ min: MAX_ORDER_LINES + 1, max: MAX_ORDER_LINES + 50 }).map((n) => (o) => {
    o.orderLines = Array.from({ length: n }, () => ({ itemNumber: "X", quantity: 1 }));
    return "OrderLines";
  }),
  "negative quantity": fc.tuple(fc.nat(), fc.integer({ min: -1000, max: -1 })).map(([i, q]) => (o) => {
    o.orderLines.push({ itemNumber: "SPARE", quantity: 1 });
    const index = i % (o.orderLines.length - 1);
    o.orderLines[index].quantity = q;
    return `OrderLines[${index}].Quantity`;
  }),
  "fractional quantity": fc
    .tuple(fc.nat(), fc.double({ min: 0.01, max: 99.99, noNaN: true }))
    .map(([i, q]) => (o) => {
      const index = i % o.orderLines.length;
      o.orderLines[index].quantity = Number.isInteger(q) ? q + 0.5 : q;
      return `OrderLines[${index}].Quantity`;
    }),
  "non-numeric quantity": fc.tuple(fc.nat(), fc.constantFrom("1", null, true, {})).map(([i, q]) => (o) => {
    o.orderLines.push({ itemNumber: "SPARE", quantity: 1 });
    const index = i % (o.orderLines.length - 1);
    o.orderLines[index].quantity = q;
    return `OrderLines[${index}].Quantity`;
  }),
  "invalid e-mail": fc
    .constantFrom("ada", "ada@", "@example.com", "ada@example", "a da@example.com")
    .map((e) => setField("shipping.contact.email", e, "Shipping.Contact.Email")),
  "national phone": fc
    .constantFrom("020 7946 0958", "0044 20 7946 0958", "+0 12 3456 789", "+44", "+44 20 79 46 09 58 12 34 5")
    .map((p) => setField("shipping.contact.phoneNumber", p, "Shipping.Contact.PhoneNumber")),
  "US/AU without state": fc
    .tuple(fc.constantFrom("US", "AU"), fc.constantFrom(null, "", "  "))
    .map(([c, s]) => (o) => {
      o.shipping.countryIso2 = c;
      o.shipping.stateName = s;
      return "Shipping.StateName";
    }),
  "unknown delivery": fc
    .constantFrom("Warehouse", "office", "")
    .map((d) => setField("shipping.deliveryAt", d, "Shipping.DeliveryAt")),
  "missing shipping city": fc.constant(setField("shipping.city", undefined, "Shipping.City")),
};

describe("checkOrderRequest (properties)", () => {
  it("accepts every request generated to the schema", () => {
    fc.assert(
      fc.property(validRequest, (request) => {
        const result = checkOrderRequest(request);
        expect(result.ok ? {} : result.details).toEqual({});
      }),
      { numRuns: 300 },
    );
  });

  for (const [rule, mutation] of Object.entries(mutations)) {
    it(`fails a broken rule with exactly its path: ${rule}`, () => {
      fc.assert(
        fc.property(validRequest, mutation, (request, mutate) => {
          const path = mutate(request);
          const result = checkOrderRequest(request);
          expect(result.ok ? [] : Object.keys(result.details)).toEqual([path]);
        }),
        { numRuns: 60 },
      );
    });
  }
});
