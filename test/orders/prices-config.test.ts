/** The customer file's prices, currency, locale and shipping countries: accepted exactly, refused clearly. */
import { describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { CustomerConfigError, parseCustomerConfig } from "../../src/config/customer.ts";
import { bundlePrice, priceDraftLines, priceOrder, storedPricing } from "../../src/orders/pricing.ts";

function problems(yaml: string): string[] {
  try {
    parseCustomerConfig(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(CustomerConfigError);
    return [...(error as CustomerConfigError).problems];
  }
  throw new Error("expected the file to be refused");
}

const file = (top: string, catalog: string) => `
adminChannel: C0ITADMIN
${top}
catalog:
${catalog}
bundles:
  - name: Kit
    lines:
      - { itemNumber: LAP-1, quantity: 1 }
      - { itemNumber: MOUSE-1, quantity: 3 }
profiles:
  - name: Acme
    channels: [C0HELPDESK]
    invoice: { id: INV-1 }
    allowedUsers: [U0AGENT01]
`;

const PRICED = `
  - { itemNumber: LAP-1, name: Laptop, price: 1249.90, countries: [US, CA] }
  - { itemNumber: MOUSE-1, name: Mouse, price: "0.10" }
`;

describe("prices in the customer file", () => {
  it("reads prices exactly, from numbers and strings, and prices orders and bundles from them", () => {
    const config = parseCustomerConfig(file("currency: EUR\nlocale: de-DE", PRICED));
    expect(config.currency).toBe("EUR");
    expect(config.locale).toBe("de-DE");
    expect(config.catalog.map((i) => i.price)).toEqual(["1249.9", "0.1"]);
    expect(config.catalog[0]?.countries).toEqual(["US", "CA"]);
    const customer = createCustomer(config);
    const pricing = priceOrder(
      [
        { itemNumber: "LAP-1", quantity: 2 },
        { itemNumber: "MOUSE-1", quantity: 1000 },
      ],
      customer,
    );
    expect(storedPricing(pricing)).toEqual({
      total: "2599.80",
      currency: "EUR",
      linePrices: ["1249.90", "0.10"],
    });
    expect(bundlePrice(config.bundles[0] as (typeof config.bundles)[number], customer)?.toString()).toBe(
      "1250.2",
    );
    // The modal's lines as typed: an empty line and a quantity being typed are left out.
    const partial = priceDraftLines(
      [
        { itemNumber: "MOUSE-1", quantity: "3" },
        { itemNumber: "", quantity: "1" },
        { itemNumber: "LAP-1", quantity: "x" },
      ],
      customer,
    );
    expect(partial?.total.toFixed(2)).toBe("0.30");
  });

  it("changes nothing without prices: no currency, no pricing", () => {
    const config = parseCustomerConfig(
      file("", "  - { itemNumber: LAP-1, name: Laptop }\n  - { itemNumber: MOUSE-1, name: Mouse }"),
    );
    expect(config.currency).toBeUndefined();
    expect(priceOrder([{ itemNumber: "LAP-1", quantity: 1 }], createCustomer(config))).toBeNull();
  });

  it("refuses a price without a currency with one message", () => {
    expect(problems(file("", PRICED))).toEqual([
      "currency: required: the catalog has prices; name their ISO 4217 currency at the top level, such as currency: EUR",
    ]);
  });

  it("refuses, one message each: a bad currency, a bad locale, negative, non-numeric and too precise prices, unpriced items", () => {
    const catalog = `
  - { itemNumber: LAP-1, name: Laptop, price: -1 }
  - { itemNumber: MOUSE-1, name: Mouse, price: "12,50" }
  - { itemNumber: PEN-1, name: Pen, price: 0.005 }
  - { itemNumber: BAG-1, name: Bag }
  - { itemNumber: BIG-1, name: Big, price: 1234567890123.4567 }
  - { itemNumber: CAB-1, name: Cable, price: 1, countries: [us, XX] }
`;
    expect(problems(file("currency: EUR\nlocale: not a locale!", catalog))).toEqual([
      "locale: must be a language tag such as en, en-GB or de-DE",
      "catalog[0].price: must not be negative",
      "catalog[1].price: must be a decimal number such as 12.50 (a dot, no separators)",
      'catalog[4].price: has more than 15 digits: write it in quotes ("1234567890123.4568") so it is read exactly',
      "catalog[5].countries[0]: must be an ISO 3166-1 alpha-2 country code in capitals, such as US or DE",
      "catalog[5].countries[1]: must be an ISO 3166-1 alpha-2 country code in capitals, such as US or DE",
      "catalog[2].price: 0.005 has 3 decimals; EUR has 2",
      "catalog: every item needs a price once one has: BAG-1 has none",
    ]);
    expect(problems(file("currency: euro", PRICED))).toEqual([
      "currency: must be an ISO 4217 currency code in capitals, such as EUR or USD",
    ]);
    expect(problems(file("currency: JPY", PRICED))).toEqual([
      "catalog[0].price: 1249.9 has 1 decimal; JPY has none",
      "catalog[1].price: 0.1 has 1 decimal; JPY has none",
    ]);
  });
});
