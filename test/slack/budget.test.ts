/**
 * Budgets in Slack, over the real wire, once per transport (signed requests or Socket Mode, the fake Slack Web API,
 * a scripted supplier on real HTTP, the store of DATABASE_URL or PGlite): an order over `orderTotalOver` waits for
 * approval and its DM shows the rule, the total and the month's spend against the budget; `refuse` says so under the
 * lines with the amount left; a rejection releases its amount, and the rejected order fixed and resubmitted meets
 * the budget again; the admin channel hears of 100 % once; `warn` places an order over the budget with one line in
 * its thread and tells the admins once; an admin's App Home shows the spend; and 20 modal submissions at once
 * against a budget that fits 5 place exactly 5.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomerConfig } from "../../src/config/customer.ts";
import type { Order } from "../../src/orders/model/order.ts";
import { successes } from "../supplier/support/stub-supplier.ts";
import { until } from "../webhooks/support.ts";
import { approvalDmFor, openFixAndResubmit, orderFor, rejectInDm, texts } from "./support/approvals.ts";
import {
  AGENT,
  MANAGER,
  openOrderModal,
  type StubbedHarness,
  startOnStubSupplier,
  submitOrderForm,
  TRANSPORTS,
} from "./support/harness.ts";
import {
  adminAlerts,
  adminHomeWithSpend,
  budgetAlertStates,
  countOrders,
  IT_LEAD_USER,
  managerApproval,
  overBudgetLines,
  pricedConfig,
  submitAtOnce,
  units,
} from "./support/spend.ts";

/**
 * Every item at €1,000; "Acme EU" has a €5,000 month that `refuse`s, and asks MANAGER above €2,500; "Acme US" has
 * a €2,000 month that warns.
 */
function budgetConfig(monthly: string): CustomerConfig {
  const config = pricedConfig();
  const [eu, us] = config.profiles;
  eu!.budget = { monthly, onExceed: "refuse" };
  eu!.approval = managerApproval([{ orderTotalOver: "2500" }]);
  us!.budget = { monthly: "2000", onExceed: "warn" };
  return config;
}

describe.each(TRANSPORTS)("budgets over %s", (transport) => {
  let h: StubbedHarness;

  beforeAll(async () => {
    h = await startOnStubSupplier(successes(40), {
      transport,
      config: budgetConfig("5000"),
      users: [IT_LEAD_USER],
    });
  });

  afterAll(() => h?.close());

  async function submitForm(ticket: string, quantity: number) {
    const view = await openOrderModal(h, ticket);
    const done = await submitOrderForm(h, view.id, ticket, units(quantity));
    return { view, done };
  }

  it("holds an order over orderTotalOver for approval; the DM shows the rule, the total and the month's spend", async () => {
    const order = await orderFor(h, "BUD-1", units(3));
    expect(order).toMatchObject({ status: "awaiting_approval", total: "3000.0000", currency: "EUR" });
    expect(order.approval).toMatchObject({
      rule: "orderTotalOver",
      budget: { spent: "3000.00", monthly: "5000" },
    });
    const dm = await h.fake.waitFor(() => approvalDmFor(h, MANAGER, "BUD-1"), { what: "the approver's DM" });
    const shown = texts(dm.versions.at(-1)?.blocks);
    expect(shown).toContain("a total of €3,000.00 (more than €2,500.00)");
    expect(shown).toContain("*Total* €3,000.00");
    expect(shown).toContain("*Rule* `orderTotalOver`");
    expect(shown).toMatch(/Spend in \d{4}-\d{2}\* €3,000.00 of the €5,000.00 monthly budget/);
  });

  it("refuses an order over what is left, under its lines; tells the admins of 100 % once", async () => {
    const fits = await orderFor(h, "BUD-2", units(2));
    expect(fits.status).not.toBe("awaiting_approval");
    const { view, done } = await submitForm("BUD-3", 1);
    expect(done.outcome).toEqual({ outcome: "errors", problems: [] });
    const errors = Object.values(h.fake.view(view.id)?.errors ?? {}).join(" ");
    expect(errors).toContain(
      "would take Acme EU's spending this month over its budget of €5,000.00: €0.00 is left",
    );
    const alert = await h.fake.waitFor(() => adminAlerts(h, "Monthly budget used up", "Acme EU")[0], {
      what: "the 100 % alert",
    });
    expect(texts(alert.versions.at(-1)?.blocks)).toContain("€5,000.00 of its €5,000.00 budget");
  });

  it("a rejection releases its amount: the refused order then fits", async () => {
    const dm = approvalDmFor(h, MANAGER, "BUD-1")!;
    await rejectInDm(h, MANAGER, dm, "Too much this month");
    await h.waitForOrder(
      (o) => o.customerReference === "BUD-1" && o.status === "rejected_by_approver",
      "BUD-1 rejected",
    );
    const { done } = await submitForm("BUD-4", 2);
    expect(done.outcome.outcome).toBe("closed");
  });

  it("a rejected order fixed and resubmitted meets the budget again: refused under its lines with what is left", async () => {
    const rejected = await h.waitForOrder((o) => o.customerReference === "BUD-1", "BUD-1");
    const fix = await openFixAndResubmit(h, rejected);
    const done = await h.agent.submit(fix.id, {});
    expect(done.outcome).toEqual({ outcome: "errors", problems: [] });
    expect(Object.values(h.fake.view(fix.id)?.errors ?? {}).join(" ")).toContain(
      "This order (€3,000.00) would take Acme EU's spending this month over its budget of €5,000.00: €1,000.00 is left.",
    );
    expect((await h.order(rejected.id)).status).toBe("rejected_by_approver");
  });

  it("warn: an order over the budget is placed with one line in its thread; the admins are told once", async () => {
    const shown = (ticket: string) =>
      h.waitForOrder(
        (o) =>
          o.customerReference === ticket &&
          !["queued", "placing"].includes(o.status) &&
          o.slackMessageTs !== null,
        `${ticket} placed and shown`,
      );
    const lines = (o: Order) => overBudgetLines(h, o.slackChannelId ?? "", o.slackMessageTs ?? "");
    await orderFor(h, "WARN-1", { profile: "Acme US", ...units(3) });
    await orderFor(h, "WARN-2", { profile: "Acme US", ...units(1) });
    const [first, second] = [await shown("WARN-1"), await shown("WARN-2")];
    await h.fake.waitFor(() => (lines(first).length === 1 && lines(second).length === 1) || undefined, {
      what: "a line in each order's thread",
    });
    expect(lines(first)[0]?.text).toContain(
      "has spent €3,000.00 this month, over its monthly budget of €2,000.00. It was placed anyway",
    );
    // Every budget alert done: what the admins were told is all they will be.
    await until(
      () => budgetAlertStates(h),
      (states) => states.every((s) => ["completed", "failed", "cancelled"].includes(s)),
      "the budget alerts sent",
    );
    const alerts = adminAlerts(h, "Acme US");
    expect(alerts.map((m) => m.text.includes("Order placed over budget"))).toEqual([true]);
    expect(alerts[0]?.text).toContain('took "Acme US" to €3,000.00');
    expect(lines(first)).toHaveLength(1);
    expect(lines(second)).toHaveLength(1);
  });

  it("shows an admin the month's spend against the budget in App Home", async () => {
    const home = await adminHomeWithSpend(h);
    expect(JSON.stringify(home.definition.blocks)).toContain("*Acme EU* · €4,000.00 of €5,000.00 (80 %)");
    await h.requests.appHomeOpened({ userId: AGENT });
    const agentHome = await h.fake.waitFor(() => h.fake.homeView(AGENT), { what: "the agent's Home" });
    expect(JSON.stringify(agentHome.definition.blocks)).not.toContain("Spend this month");
  });
});

describe.each(TRANSPORTS)(
  "20 modal submissions at once over %s against a budget that fits 5",
  (transport) => {
    let h: StubbedHarness;

    beforeAll(async () => {
      h = await startOnStubSupplier(successes(30), { transport, config: budgetConfig("5000") });
    });

    afterAll(() => h?.close());

    it("accepts exactly 5 and refuses 15 inline", async () => {
      const results = await submitAtOnce(h, "RACE", 20);
      const outcomes = results.map((r) => r.outcome.outcome).sort();
      expect(outcomes).toEqual([...Array(5).fill("closed"), ...Array(15).fill("errors")].sort());
      expect(await countOrders(h, "RACE")).toBe(5);
    });
  },
);
