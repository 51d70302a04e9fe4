/**
 * Amounts in the customer's `locale` wherever budgets speak, over the real wire (signed requests, the fake Slack Web
 * API, a scripted supplier, the store of DATABASE_URL or PGlite): with `locale: de-DE`, the `orderTotalOver` phrase
 * and the month's spend in the approver's DM, a refusal under the lines, the 80 % alert, a `warn` order's thread
 * line and its admin alert all write `1.000,00 €`, as the modal's total and the order message do.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomerConfig } from "../../src/config/customer.ts";
import { overBudgetRule } from "../../src/orders/budget/reserve.ts";
import { successes } from "../supplier/support/stub-supplier.ts";
import { approvalDmFor, orderFor, texts } from "./support/approvals.ts";
import {
  HELPDESK,
  MANAGER,
  openOrderModal,
  type StubbedHarness,
  startOnStubSupplier,
  submitOrderForm,
} from "./support/harness.ts";
import { adminAlerts, managerApproval, overBudgetLines, pricedConfig } from "./support/spend.ts";

/** `amount` as de-DE writes euros: `1.000,00 €` (a no-break space before the sign). */
const eur = (amount: string) => `${amount}\u00a0€`;

/**
 * de-DE, every item at €1,000. "Acme EU": a €2,500 month that refuses, MANAGER asked above €1,500. "Acme US": a
 * €2,000 month that warns.
 */
function localeConfig(): CustomerConfig {
  const config = pricedConfig();
  config.locale = "de-DE";
  const [eu, us] = config.profiles;
  eu!.budget = { monthly: "2500", onExceed: "refuse" };
  eu!.approval = managerApproval([{ orderTotalOver: "1500" }]);
  us!.budget = { monthly: "2000", onExceed: "warn" };
  return config;
}

describe("budgets in the customer's locale", () => {
  let h: StubbedHarness;

  beforeAll(async () => {
    h = await startOnStubSupplier(successes(5), { config: localeConfig() });
  });

  afterAll(() => h?.close());

  const adminAlert = (title: string) =>
    h.fake.waitFor(() => adminAlerts(h, title)[0], { what: `the admin alert "${title}"` });

  it("writes the rule, the total and the month's spend in the approver's DM, and the 80 % alert, in de-DE", async () => {
    await orderFor(h, "LOC-1", { line_0_quantity: "2" });
    const dm = await h.fake.waitFor(() => approvalDmFor(h, MANAGER, "LOC-1"), { what: "the approver's DM" });
    const shown = texts(dm.versions.at(-1)?.blocks);
    expect(shown).toContain(`a total of ${eur("2.000,00")} (more than ${eur("1.500,00")})`);
    expect(shown).toContain(`*Total* ${eur("2.000,00")}`);
    expect(shown).toContain(`${eur("2.000,00")} of the ${eur("2.500,00")} monthly budget`);
    const alert = await adminAlert("Monthly budget 80 % used");
    expect(alert.text).toContain(`has spent ${eur("2.000,00")} of its ${eur("2.500,00")} budget`);
  });

  it("refuses under the lines with the amounts in de-DE", async () => {
    const view = await openOrderModal(h, "LOC-2");
    const done = await submitOrderForm(h, view.id, "LOC-2");
    expect(done.outcome).toEqual({ outcome: "errors", problems: [] });
    expect(Object.values(h.fake.view(view.id)?.errors ?? {}).join(" ")).toContain(
      `This order (${eur("1.000,00")}) would take Acme EU's spending this month over its budget of ${eur("2.500,00")}: ${eur("500,00")} is left.`,
    );
  });

  it("warn: the thread line and the admins' alert in de-DE", async () => {
    const order = await orderFor(h, "LOC-3", { profile: "Acme US", line_0_quantity: "3" });
    const shown = await h.waitForOrder(
      (o) => o.id === order.id && o.slackMessageTs !== null,
      "LOC-3's message",
    );
    const line = await h.fake.waitFor(() => overBudgetLines(h, HELPDESK, shown.slackMessageTs ?? "")[0], {
      what: "the over-budget line",
    });
    expect(line.text).toContain(
      `has spent ${eur("3.000,00")} this month, over its monthly budget of ${eur("2.000,00")}`,
    );
    const alert = await adminAlert("Order placed over budget");
    expect(alert.text).toContain(`(${eur("3.000,00")}) took "Acme US" to ${eur("3.000,00")}`);
  });

  it("writes the overBudget rule's phrase in the locale", () => {
    const decision = {
      profile: "Acme EU",
      month: "2026-11",
      monthly: "20000",
      currency: "EUR",
      onExceed: "approve" as const,
      total: "2500",
      spent: "19000",
      after: "21500",
      left: "1000",
      over: true,
    };
    expect(overBudgetRule(decision, "de-DE").phrase).toBe(
      `going over the monthly budget (${eur("21.500,00")} of ${eur("20.000,00")})`,
    );
    expect(overBudgetRule(decision).phrase).toBe("going over the monthly budget (€21,500.00 of €20,000.00)");
  });
});
