import { describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { CustomerConfigError, parseCustomerConfig } from "../../src/config/customer.ts";
import { matchApprovalRule } from "../../src/orders/approvals/rules.ts";

function problems(yaml: string): string[] {
  try {
    parseCustomerConfig(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(CustomerConfigError);
    return [...(error as CustomerConfigError).problems];
  }
  throw new Error("expected the file to be refused");
}

const file = (top: string, profile: string) => `
adminChannel: C0ITADMIN
${top}
catalog:
  - { itemNumber: LAP-1, name: Laptop, category: Laptops, price: 1200 }
profiles:
  - name: Acme
    channels: [C0HELPDESK]
    invoice: { id: INV-1 }
    allowedUsers: [U0AGENT01]
${profile}
`;

describe("budgets in the customer file", () => {
  it("reads a budget, the time zone and the amount rules exactly", () => {
    const config = parseCustomerConfig(
      file(
        "currency: EUR\ntimeZone: Europe/Amsterdam",
        `    budget: { monthly: 20000, onExceed: approve }
    approval:
      approvers: [U0BOSS001]
      when: [{ orderTotalOver: 2000.5 }, { overBudget: true }]`,
      ),
    );
    const profile = config.profiles[0];
    expect(config.timeZone).toBe("Europe/Amsterdam");
    expect(profile?.budget).toEqual({ monthly: "20000", onExceed: "approve" });
    expect(profile?.approval?.when).toEqual([{ orderTotalOver: "2000.5" }, { overBudget: true }]);
    const customer = createCustomer(config);
    const request = {
      orderLines: [{ itemNumber: "LAP-1", quantity: 2 }],
      shipping: { deliveryAt: "Office" as const },
    };
    expect(
      matchApprovalRule(profile?.approval, request, customer, { total: "2400.00", currency: "EUR" }),
    ).toEqual({
      rule: "orderTotalOver",
      phrase: "a total of €2,400.00 (more than €2,000.50)",
    });
    expect(
      matchApprovalRule(profile?.approval, request, customer, { total: "2000.50", currency: "EUR" }),
    ).toBeNull();
  });

  it("lists every budget problem at once, each with its path", () => {
    const found = problems(
      file(
        "timeZone: Mars/Olympus",
        `    budget: { monthly: -5, onExceed: sometimes, weekly: 10 }
    approval:
      approvers: [U0BOSS001]
      when: [{ overBudget: true }, { orderTotalOver: abc }]`,
      ),
    );
    const text = found.join("\n");
    expect(text).toContain("timeZone: must be an IANA time zone");
    expect(text).toMatch(/budget\.monthly: must not be negative/);
    expect(text).toMatch(/budget\.onExceed: must be approve, refuse or warn/);
    expect(text).toMatch(/budget.*weekly/);
    expect(text).toMatch(/orderTotalOver: must be an amount/);
  });

  it("refuses a budget without a currency, approve without approvers, and overBudget without approve", () => {
    const noCurrency = problems(file("", "    budget: { monthly: 100, onExceed: refuse }")).join("\n");
    expect(noCurrency).toContain("a budget needs the file's currency");
    const noApprovers = problems(
      file("currency: EUR", "    budget: { monthly: 100, onExceed: approve }"),
    ).join("\n");
    expect(noApprovers).toContain("approve needs someone to ask");
    const notApprove = problems(
      file(
        "currency: EUR",
        `    budget: { monthly: 100, onExceed: warn }
    approval: { approvers: [U0BOSS001], when: [{ overBudget: true }] }`,
      ),
    ).join("\n");
    expect(notApprove).toContain("overBudget applies only to a profile with budget.onExceed: approve");
  });
});
