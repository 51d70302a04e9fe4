/** Approval rules: each rule of `approval.when`, its phrase, and the customer file's checks of the block. */
import { describe, expect, it } from "vitest";
import type { ApprovalRule } from "../../src/config/approval-schema.ts";
import { createCustomer } from "../../src/config/catalog.ts";
import { CustomerConfigError, parseCustomerConfig } from "../../src/config/customer.ts";
import { matchApprovalRule } from "../../src/orders/approvals/rules.ts";
import { exampleConfig } from "../helpers/slack-world.ts";

const customer = createCustomer(exampleConfig());

function request(lines: [string, number][], deliveryAt: "Office" | "Home" = "Office") {
  return {
    orderLines: lines.map(([itemNumber, quantity]) => ({ itemNumber, quantity, comments: null })),
    shipping: { deliveryAt },
  };
}

const approval = (when: ApprovalRule[]) => ({
  approvers: ["U0MANAGER"],
  approverGroups: [],
  when,
  remindAfterHours: 24,
  expireAfterDays: 7,
});

describe("approval rules", () => {
  it.each([
    [{ always: true as const }, request([["MOUSE-WL", 1]]), "always", "every order of this profile"],
    [
      { itemNumbers: ["LAP-14-PRO"] },
      request([["LAP-14-PRO", 1]]),
      "itemNumbers",
      'Laptop 14" Pro (32 GB, 1 TB) (LAP-14-PRO)',
    ],
    [{ categories: ["Phones"] }, request([["PHONE-STD", 1]]), "categories", "an item in Phones"],
    [
      { quantityOver: 3 },
      request([
        ["MOUSE-WL", 2],
        ["KB-WL-US", 2],
      ]),
      "quantityOver",
      "4 units (more than 3)",
    ],
    [{ deliveryAt: "Home" as const }, request([["MOUSE-WL", 1]], "Home"), "deliveryAt", "a Home delivery"],
    [
      { outsideBundles: true as const },
      request([
        ["PHONE-STD", 1],
        ["MOUSE-WL", 1],
      ]),
      "outsideBundles",
      "Smartphone (standard) (PHONE-STD) outside the standard kits",
    ],
  ])("matches %o and names it", (rule, req, key, phrase) => {
    expect(matchApprovalRule(approval([rule as ApprovalRule]), req, customer)).toEqual({ rule: key, phrase });
  });

  it.each([
    [{ itemNumbers: ["LAP-14-PRO"] }, request([["MOUSE-WL", 1]])],
    [{ categories: ["Phones"] }, request([["LAP-13-AIR", 1]])],
    [{ quantityOver: 3 }, request([["MOUSE-WL", 3]])],
    [{ deliveryAt: "Home" as const }, request([["MOUSE-WL", 1]], "Office")],
    [
      { outsideBundles: true as const },
      request([
        ["MON-27-4K", 2],
        ["DOCK-USBC", 1],
      ]),
    ],
  ])("does not match %o otherwise", (rule, req) => {
    expect(matchApprovalRule(approval([rule as ApprovalRule]), req, customer)).toBeNull();
  });

  it("takes the first rule that matches, and none without an approval block", () => {
    const both = approval([{ quantityOver: 10 }, { deliveryAt: "Home" }, { always: true }]);
    expect(matchApprovalRule(both, request([["MOUSE-WL", 1]], "Home"), customer)?.rule).toBe("deliveryAt");
    expect(matchApprovalRule(undefined, request([["MOUSE-WL", 1]], "Home"), customer)).toBeNull();
  });
});

const BASE = `
adminChannel: C0ITADMIN
catalog:
  - { itemNumber: LAP-1, name: Laptop, category: Laptops }
profiles:
  - name: Acme
    channels: [C0HELPDESK]
    invoice: { id: INV-1 }
    allowedUsers: [U0AGENT01]
`;

function problems(approvalYaml: string): string[] {
  try {
    parseCustomerConfig(`${BASE}    approval:\n${approvalYaml.replace(/^/gm, "      ")}\n`);
  } catch (error) {
    expect(error).toBeInstanceOf(CustomerConfigError);
    return [...(error as CustomerConfigError).problems];
  }
  throw new Error("expected the file to be refused");
}

describe("the approval block in the customer file", () => {
  it("fills the defaults: every order, reminded after 24 hours, expired after 7 days", () => {
    const config = parseCustomerConfig(`${BASE}    approval: { approvers: [U0MANAGER] }\n`);
    expect(config.profiles[0]?.approval).toEqual({
      approvers: ["U0MANAGER"],
      approverGroups: [],
      when: [{ always: true }],
      remindAfterHours: 24,
      expireAfterDays: 7,
    });
  });

  it("reports every problem at once: unknown keys, nobody to approve, unknown items and categories", () => {
    const found = problems(
      [
        "approverz: [U0X]",
        "when:",
        "  - itemNumbers: [LAP-1, LAP-9]",
        "  - categories: [Phones]",
        "  - deliveryAt: Garden",
        "  - { quantityOver: 3, deliveryAt: Home }",
      ].join("\n"),
    ).join("\n");
    expect(found).toMatch(/approverz/);
    expect(found).toMatch(/LAP-9 is not in the catalog/);
    expect(found).toMatch(/category Phones/);
    expect(found).toMatch(/Office or Home/);
    expect(found).toMatch(/exactly one/);
  });

  it("refuses an approval block with nobody to approve", () => {
    expect(problems("approvers: []\napproverGroups: []").join("\n")).toMatch(/nobody may approve/);
  });
});
