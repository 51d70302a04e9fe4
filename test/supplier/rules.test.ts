import { describe, expect, it } from "vitest";
import { COUNTRIES, isCountryCode } from "../../src/supplier/countries.ts";
import { checkOrderRequest, toSupplierPath } from "../../src/supplier/rules.ts";
import { MAX_ORDER_LINES } from "../../src/supplier/schema.ts";
import { validOrder } from "../../tools/example-order.ts";

// biome-ignore lint/suspicious/noExplicitAny: the tests edit arbitrary JSON documents
type Draft = any;

/** Deep copy, mutated by `edit`, then checked: returns the failing paths (or [] when valid). */
function failingPaths(edit: (order: Draft) => unknown): string[] {
  const order: Draft = structuredClone(validOrder());
  edit(order);
  const result = checkOrderRequest(order);
  return result.ok ? [] : Object.keys(result.details).sort();
}

describe("checkOrderRequest", () => {
  it("accepts a complete valid order and applies the default type", () => {
    const { type: _omitted, ...withoutType } = validOrder();
    const result = checkOrderRequest(withoutType);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value.type).toBe("New");
  });

  it("accepts an invoice party given by id together with a full address", () => {
    expect(
      failingPaths((o) => {
        o.invoice = {
          id: "INV-1",
          vatNumber: "GB123",
          companyName: "Acme",
          attentionName: null,
          address1: "1 Road",
          address2: null,
          city: "Sydney",
          zipCode: "2000",
          stateName: "NSW",
          countryIso2: "AU",
        };
      }),
    ).toEqual([]);
  });

  it("accepts a consignee given by id, by full address, or null", () => {
    expect(failingPaths((o) => (o.consignee = { id: "CONS-7" }))).toEqual([]);
    expect(
      failingPaths(
        (o) =>
          (o.consignee = {
            companyName: "Acme Warehouse",
            address1: "5 Dock St",
            city: "Rotterdam",
            zipCode: "3011",
            countryIso2: "NL",
          }),
      ),
    ).toEqual([]);
    expect(failingPaths((o) => delete o.consignee)).toEqual([]);
  });

  it("reports an empty, blank or missing invoice id under Invoice.Id", () => {
    expect(failingPaths((o) => (o.invoice.id = ""))).toEqual(["Invoice.Id"]);
    expect(failingPaths((o) => (o.invoice.id = "   "))).toEqual(["Invoice.Id"]);
    expect(failingPaths((o) => delete o.invoice.id)).toEqual(["Invoice.Id"]);
    expect(failingPaths((o) => (o.invoice.id = null))).toEqual(["Invoice.Id"]);
  });

  it("checks every address's country against the full ISO 3166-1 list, not a pattern", () => {
    expect(failingPaths((o) => (o.shipping.countryIso2 = "XX"))).toEqual(["Shipping.CountryIso2"]);
    expect(failingPaths((o) => (o.shipping.countryIso2 = "UK"))).toEqual(["Shipping.CountryIso2"]);
    expect(failingPaths((o) => (o.shipping.countryIso2 = "gb"))).toEqual(["Shipping.CountryIso2"]);
    expect(failingPaths((o) => (o.shipping.countryIso2 = ""))).toEqual(["Shipping.CountryIso2"]);
    expect(failingPaths((o) => (o.invoice.countryIso2 = "ZZ"))).toEqual(["Invoice.CountryIso2"]);
    expect(
      failingPaths(
        (o) =>
          (o.sellTo = {
            companyName: "Reseller",
            address1: "1 St",
            city: "Oslo",
            zipCode: "0150",
            countryIso2: "QQ",
          }),
      ),
    ).toEqual(["SellTo.CountryIso2"]);
    expect(
      failingPaths(
        (o) =>
          (o.consignee = {
            companyName: "W",
            address1: "1 St",
            city: "Oslo",
            zipCode: "0150",
            countryIso2: "EU",
          }),
      ),
    ).toEqual(["Consignee.CountryIso2"]);
  });

  it("knows all 249 assigned ISO codes", () => {
    expect(Object.keys(COUNTRIES)).toHaveLength(249);
    for (const code of ["AX", "BQ", "CW", "SS", "SX", "XK"]) expect(isCountryCode(code)).toBe(code !== "XK");
  });

  it("requires stateName for US and AU addresses only", () => {
    expect(failingPaths((o) => Object.assign(o.shipping, { countryIso2: "US", stateName: null }))).toEqual([
      "Shipping.StateName",
    ]);
    expect(failingPaths((o) => Object.assign(o.shipping, { countryIso2: "AU", stateName: " " }))).toEqual([
      "Shipping.StateName",
    ]);
    expect(failingPaths((o) => Object.assign(o.invoice, { countryIso2: "US" }))).toEqual([
      "Invoice.StateName",
    ]);
    expect(failingPaths((o) => Object.assign(o.shipping, { countryIso2: "US", stateName: "CA" }))).toEqual(
      [],
    );
    expect(failingPaths((o) => Object.assign(o.shipping, { countryIso2: "CA", stateName: null }))).toEqual(
      [],
    );
  });

  it("requires at least one order line, and one with a quantity above 0", () => {
    expect(failingPaths((o) => (o.orderLines = []))).toEqual(["OrderLines"]);
    expect(
      failingPaths((o) => {
        for (const line of o.orderLines) line.quantity = 0;
      }),
    ).toEqual(["OrderLines"]);
    expect(failingPaths((o) => (o.orderLines[0].quantity = 0))).toEqual([]);
  });

  it(`refuses more than ${MAX_ORDER_LINES} lines`, () => {
    const line = { itemNumber: "CABLE", quantity: 1 };
    expect(failingPaths((o) => (o.orderLines = Array.from({ length: MAX_ORDER_LINES }, () => line)))).toEqual(
      [],
    );
    expect(
      failingPaths((o) => (o.orderLines = Array.from({ length: MAX_ORDER_LINES + 1 }, () => line))),
    ).toEqual(["OrderLines"]);
  });

  it("requires whole, non-negative quantities, reported per line", () => {
    expect(failingPaths((o) => (o.orderLines[1].quantity = -1))).toEqual(["OrderLines[1].Quantity"]);
    expect(failingPaths((o) => (o.orderLines[1].quantity = 1.5))).toEqual(["OrderLines[1].Quantity"]);
    expect(failingPaths((o) => (o.orderLines[0].quantity = "2"))).toEqual(["OrderLines[0].Quantity"]);
  });

  it("validates the contact e-mail and requires an international phone number", () => {
    expect(failingPaths((o) => (o.shipping.contact.email = "ada@localhost"))).toEqual([
      "Shipping.Contact.Email",
    ]);
    expect(failingPaths((o) => (o.shipping.contact.email = "ada example.com"))).toEqual([
      "Shipping.Contact.Email",
    ]);
    expect(failingPaths((o) => (o.shipping.contact.phoneNumber = "020 7946 0958"))).toEqual([
      "Shipping.Contact.PhoneNumber",
    ]);
    expect(failingPaths((o) => (o.shipping.contact.phoneNumber = "+0 20 7946 0958"))).toEqual([
      "Shipping.Contact.PhoneNumber",
    ]);
    expect(failingPaths((o) => (o.shipping.contact.phoneNumber = "+1 415-555-0100"))).toEqual([]);
    expect(failingPaths((o) => (o.shipping.contact.phoneNumber = "+4420794609581234"))).toEqual([
      "Shipping.Contact.PhoneNumber",
    ]);
    expect(
      failingPaths(
        (o) =>
          (o.sellTo = {
            companyName: "R",
            contact: { firstName: "A", lastName: "B", phoneNumber: "12345678", email: "nope" },
          }),
      ),
    ).toEqual(["SellTo.Contact.Email", "SellTo.Contact.PhoneNumber"]);
  });

  it("maps structural errors (wrong types, missing fields, bad enums) to supplier paths", () => {
    expect(failingPaths((o) => (o.shipping.deliveryAt = "Warehouse"))).toEqual(["Shipping.DeliveryAt"]);
    expect(failingPaths((o) => delete o.shipping.city)).toEqual(["Shipping.City"]);
    expect(failingPaths((o) => (o.shipping.contact = null))).toEqual(["Shipping.Contact"]);
    expect(failingPaths((o) => (o.orderLines[1].lineRef1 = 7))).toEqual(["OrderLines[1].LineRef1"]);
    expect(failingPaths((o) => (o.externalDocumentNumber = 42))).toEqual(["ExternalDocumentNumber"]);
    expect(failingPaths((o) => (o.consignee = { id: 5 }))).toEqual(["Consignee.Id"]);
    expect(failingPaths((o) => (o.consignee = { companyName: "W", address1: "1 St" }))).toEqual([
      "Consignee.City",
      "Consignee.CountryIso2",
      "Consignee.ZipCode",
    ]);
    expect(failingPaths((o) => (o.consignee = "CONS-7"))).toEqual(["Consignee"]);
    const notAnObject = checkOrderRequest([]);
    expect(notAnObject.ok ? {} : notAnObject.details).toEqual({ Request: ["'Request' must be an object."] });
  });

  it("reports every failing field at once, with readable messages", () => {
    const result = checkOrderRequest({
      ...validOrder(),
      invoice: { id: "" },
      shipping: {
        ...validOrder().shipping,
        countryIso2: "XX",
        contact: { ...validOrder().shipping.contact, email: "x" },
      },
      orderLines: [{ itemNumber: "A", quantity: 0 }],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.details).toEqual({
      "Invoice.Id": ["'Invoice.Id' must not be empty."],
      "Shipping.CountryIso2": [
        `'Shipping.CountryIso2' must be a recognised ISO 3166-1 alpha-2 country code (for example "GB", "US").`,
      ],
      "Shipping.Contact.Email": ["'Shipping.Contact.Email' must be a valid e-mail address."],
      OrderLines: ["'OrderLines' must have at least one line with a quantity greater than 0."],
    });
  });

  it("writes paths in the supplier's style", () => {
    expect(toSupplierPath(["orderLines", 1, "quantity"])).toBe("OrderLines[1].Quantity");
    expect(toSupplierPath(["shipping", "contact", "email"])).toBe("Shipping.Contact.Email");
    expect(toSupplierPath(["invoice", "countryIso2"])).toBe("Invoice.CountryIso2");
    expect(toSupplierPath([])).toBe("Request");
  });
});
