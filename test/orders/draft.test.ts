import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { parseCustomerConfig } from "../../src/config/customer.ts";
import { checkDraft } from "../../src/orders/check.ts";
import { ednTemplate, fillEdn, renderEdn } from "../../src/orders/edn.ts";
import {
  describeFieldErrors,
  fieldErrorsFromDetails,
  fieldForSupplierPath,
} from "../../src/orders/fields.ts";
import { draftToRequest } from "../../src/orders/request.ts";
import { errorsForBlocks } from "../../src/slack/blocks/order-modal-errors.ts";
import { checkOrderRequest } from "../../src/supplier/rules.ts";
import { acmeUsDraft } from "../helpers/drafts.ts";

const customer = createCustomer(
  parseCustomerConfig(readFileSync(new URL("../../examples/order-desk.config.yml", import.meta.url), "utf8")),
);

const draft = acmeUsDraft;

describe("draft → request", () => {
  it("takes the agreed values from the profile and the delivery from the draft", () => {
    const result = checkDraft(draft({ shippingReference: "SR-9", attention: "Reception" }), customer, {
      now: new Date("2026-01-02T00:00:00Z"),
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.request).toMatchObject({
      externalDocumentNumber: "ABC-123-1",
      type: "New",
      customerReference: "ABC-123",
      invoice: { id: "INV-ACME-US" },
      consignee: { id: "CONS-ACME-US-DC" },
      shipping: {
        deliveryAt: "Office",
        companyName: "Acme Inc.",
        attention: "Reception",
        reference: "SR-9",
        countryIso2: "US",
        stateName: "CA",
        contact: {
          firstName: "Nina",
          lastName: "Newhire",
          email: "nina@example.com",
          phoneNumber: "+1 415 555 0101",
        },
      },
      orderLines: [{ itemNumber: "LAP-14-PRO", quantity: 2, comments: "Asset-tag" }],
    });
  });

  it("reports every problem at once, on the draft's fields, in plain words", () => {
    const result = checkDraft(
      draft({
        ticket: "abc 123",
        email: "nina@",
        phone: "555-0101",
        deliveryAt: null,
        state: "",
        lines: [
          { itemNumber: "NOPE-1", quantity: "1", comment: "" },
          { itemNumber: "MOUSE-WL", quantity: "two", comment: "" },
        ],
      }),
      customer,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual(
      ["deliveryAt", "email", "lines.0.itemNumber", "lines.1.quantity", "phone", "state", "ticket"].sort(),
    );
    expect(result.errors.email).toEqual(["Must be a valid e-mail address."]);
    expect(result.errors.state).toEqual(["A state is required for US addresses."]);
    expect(result.errors["lines.1.quantity"]).toEqual(["Enter a whole number, such as 1 or 2."]);
    expect(describeFieldErrors(result.errors)).toContain(
      "Line 1 item: NOPE-1 is not in the agreed catalog; choose an item from the list.",
    );
  });

  it("says once, under the quantities, that an order needs a line with a quantity", () => {
    const result = checkDraft(
      draft({ lines: [{ itemNumber: "MOUSE-WL", quantity: "0", comment: "" }] }),
      customer,
    );
    expect(!result.ok && result.errors).toEqual({ "lines.0.quantity": ["Enter at least 1."] });
    if (result.ok) return;
    // In the modal: under the line's quantity only, not also under its item picker.
    expect(errorsForBlocks(result.errors, ["0"], { hasProfileBlock: true, hasEdnBlock: true })).toEqual({
      line_0_quantity: "Enter at least 1.",
    });
  });

  it("words the supplier's rejections for people, naming the field as the form does", () => {
    const errors = fieldErrorsFromDetails({
      "Shipping.StateName": ["'Shipping.StateName' is required for addresses in AU."],
      "Shipping.City": ["'Shipping.City' is required."],
      "Shipping.Contact.Email": ["'Shipping.Contact.Email' must not be empty."],
    });
    expect(errors).toEqual({
      state: ["A state is required for AU addresses."],
      city: ["City is required."],
      email: ["E-mail must not be empty."],
    });
  });

  it("requires a company for Office deliveries but not for Home", () => {
    const office = checkDraft(draft({ company: "" }), customer);
    expect(!office.ok && office.errors.company).toBeTruthy();
    expect(checkDraft(draft({ company: "", deliveryAt: "Home" }), customer).ok).toBe(true);
  });

  it("drops lines left blank so line numbers match the request", () => {
    const result = checkDraft(
      draft({
        lines: [
          { itemNumber: "", quantity: "1", comment: "" },
          { itemNumber: "MOUSE-WL", quantity: "1", comment: "" },
        ],
      }),
      customer,
    );
    expect(result.ok && result.request.orderLines.map((l) => l.itemNumber)).toEqual(["MOUSE-WL"]);
    const none = checkDraft(draft({ lines: [] }), customer);
    expect(!none.ok && none.errors.lines).toEqual(["Add at least one item."]);
  });

  it("passes what the supplier's own rules pass (the same request is checked)", () => {
    const result = checkDraft(draft(), customer);
    expect(result.ok).toBe(true);
    if (result.ok) expect(checkOrderRequest(result.request).ok).toBe(true);
    const profile = customer.profile("Acme US")!;
    expect(checkOrderRequest(draftToRequest(draft({ country: "XX" }), profile, "E-1")).ok).toBe(false);
  });
});

describe("the path map", () => {
  it.each([
    ["Shipping.Contact.Email", "email"],
    ["Shipping.CountryIso2", "country"],
    ["shipping.zipcode", "zip"],
    ["OrderLines", "lines"],
    ["OrderLines[2].Quantity", "lines.2.quantity"],
    ["OrderLines[0]", "lines.0.itemNumber"],
    ["Invoice.Id", "profile"],
    ["Consignee.Id", "profile"],
    ["Something.New", "profile"],
  ])("%s → %s", (path, field) => {
    expect(fieldForSupplierPath(path)).toBe(field);
  });

  it("puts the supplier's details on the modal's exact blocks", () => {
    const errors = fieldErrorsFromDetails({
      "Shipping.Contact.PhoneNumber": ["'Shipping.Contact.PhoneNumber' is not valid for the destination."],
      "OrderLines[1].Quantity": ["'OrderLines[1].Quantity' exceeds the stock."],
      OrderLines: ["'OrderLines' must contain at least one order line."],
      "Invoice.Id": ["'Invoice.Id' must not be empty."],
    });
    expect(errors.profile?.[0]).toMatch(/profile is misconfigured \(Invoice\.Id: must not be empty\.\)/);
    const byBlock = errorsForBlocks(errors, ["a", "c"], { hasProfileBlock: false, hasEdnBlock: true });
    expect(byBlock).toEqual({
      phone: "Is not valid for the destination.",
      line_c_quantity: "Exceeds the stock.",
      line_a_item: "Must contain at least one order line.",
      ticket: expect.stringMatching(/misconfigured/),
    });
  });
});

describe("external document numbers", () => {
  const ctx = { ticket: "#123", profile: "Acme EU", now: new Date("2026-03-04T10:00:00Z") };
  it("renders the pattern's placeholders", () => {
    expect(renderEdn("{ticket}-{seq}", ctx, 7)).toBe("123-7");
    expect(renderEdn("{profile}/{date}/{seq:4}", ctx, 7)).toBe("ACMEEU/20260304/0007");
  });

  it("splits a pattern around its counters, keyed by everything else, and never cuts a number to its width", () => {
    const template = ednTemplate("{seq:3}/{ticket}-{seq}.{seq:2}", ctx);
    expect(template).toEqual({
      counter: "edn:{seq:3}/123-{seq}.{seq:2}",
      parts: ["", "/123-", ".", ""],
      pads: [3, 0, 2],
    });
    expect(fillEdn(template, 7)).toBe("007/123-7.07");
    expect(fillEdn(template, 12345)).toBe("12345/123-12345.12345");
  });

  // A submit is checked with a stand-in number before its number is taken (the check answers the modal before
  // anything is written). A rule that depends on the number's value would make that answer wrong: this fails.
  it("are judged by the supplier's rules the same whatever their counter's value", () => {
    const profile = customer.profile("Acme US")!;
    const verdicts = (input: ReturnType<typeof draft>) =>
      [1, 9, 10, 99_999, 1_000_000_000_000].map((seq) => {
        const checked = checkOrderRequest(
          draftToRequest(input, profile, renderEdn("{ticket}-{seq}", ctx, seq)),
        );
        return checked.ok ? "ok" : checked.details;
      });
    for (const input of [draft(), draft({ country: "XX" }), draft({ lines: [] })]) {
      const all = verdicts(input);
      expect(new Set(all.map((v) => JSON.stringify(v))).size).toBe(1);
    }
  });
});
