/**
 * `onExceed: approve` over the real wire, once per transport (signed requests or Socket Mode, the fake Slack Web
 * API, a scripted supplier on real HTTP, the store of DATABASE_URL or PGlite): of 20 modal submissions at once
 * against a budget that fits 5, exactly 5 are placed and 15 wait for an approver, each DM naming the `overBudget`
 * rule with the order's total and the month's spend against the budget (orders waiting for approval count); an
 * approved one is placed; an admin's App Home counts the waiting orders in the month's spend.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomerConfig } from "../../src/config/customer.ts";
import { formatMoney } from "../../src/orders/currency.ts";
import { successes } from "../supplier/support/stub-supplier.ts";
import { until } from "../webhooks/support.ts";
import { approvalDmFor, clickApproval, texts } from "./support/approvals.ts";
import { MANAGER, type StubbedHarness, startOnStubSupplier, TRANSPORTS } from "./support/harness.ts";
import {
  adminHomeWithSpend,
  countOrders,
  IT_LEAD_USER,
  managerApproval,
  pricedConfig,
  submitAtOnce,
} from "./support/spend.ts";

/** Every item at €1,000; "Acme EU" has a €5,000 month past which MANAGER decides (and no other rule). */
function approveConfig(): CustomerConfig {
  const config = pricedConfig();
  const profile = config.profiles[0]!;
  profile.budget = { monthly: "5000", onExceed: "approve" };
  profile.approval = managerApproval([{ overBudget: true }]);
  return config;
}

/** Placed at the supplier: past the queue, not waiting for anyone. */
const PLACED = "status NOT IN ('queued', 'placing', 'awaiting_approval')";

describe.each(TRANSPORTS)("onExceed: approve over %s", (transport) => {
  let h: StubbedHarness;

  beforeAll(async () => {
    h = await startOnStubSupplier(successes(10), {
      transport,
      config: approveConfig(),
      users: [IT_LEAD_USER],
    });
  });

  afterAll(() => h?.close());

  const count = (where: string) => countOrders(h, "APR", where);

  /** The approvers' DMs go out at Slack's pace: the first one posted for one of these tickets, and its ticket. */
  const firstDm = (tickets: string[]) =>
    h.fake.waitFor(
      () =>
        tickets.flatMap((ticket) => {
          const dm = approvalDmFor(h, MANAGER, ticket);
          return dm ? [[ticket, dm] as const] : [];
        })[0],
      { what: "an approver's DM", timeoutMs: 15_000 },
    );

  it("of 20 submitted at once against a budget that fits 5, places 5 and holds 15 for approval", async () => {
    const results = await submitAtOnce(h, "APR", 20);
    // Nothing is refused: past the budget, an approver decides.
    expect(results.map((r) => r.outcome.outcome)).toEqual(Array(20).fill("closed"));
    await until(
      async () => [await count(PLACED), await count("status = 'awaiting_approval'")],
      (n) => n[0] === 5 && n[1] === 15,
      "5 placed and 15 waiting for approval",
    );
    expect(await count("true")).toBe(20);
    expect(await count("approval->>'rule' = 'overBudget'")).toBe(15);
    // The supplier was asked for those 5 only (a retried request would repeat one of them).
    const asked = h.supplier.requests.filter((r) => r.method === "POST").map((r) => JSON.parse(r.body));
    expect(new Set(asked.map((o: { customerReference?: string }) => o.customerReference)).size).toBe(5);
  });

  it("asks the approver naming the rule, with the total and the month's spend against the budget", async () => {
    const { rows } = await h.store.query<{ ticket: string; spent: string }>(
      `SELECT customer_reference AS ticket, approval->'budget'->>'spent' AS spent FROM orders
        WHERE customer_reference LIKE 'APR-%' AND status = 'awaiting_approval'`,
    );
    // Each held order saw the ones accepted before it: the month's spend with it is €6,000 to €20,000.
    expect(rows.map((r) => Number(r.spent)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 15 }, (_, i) => 6000 + i * 1000),
    );
    const [ticket, dm] = await firstDm(rows.map((r) => r.ticket));
    const spent = formatMoney(rows.find((r) => r.ticket === ticket)!.spent, "EUR");
    const shown = texts(dm.versions.at(-1)?.blocks);
    expect(shown).toContain(`going over the monthly budget (${spent} of €5,000.00)`);
    expect(shown).toContain("*Total* €1,000.00");
    expect(shown).toContain("*Rule* `overBudget`");
    expect(shown).toMatch(/Spend in \d{4}-\d{2}\* /);
    expect(shown).toContain(`${spent} of the €5,000.00 monthly budget, with this order`);
  });

  it("places an order its approver approves; the admin's App Home counts the waiting ones in the spend", async () => {
    // The order whose DM went out first.
    const { rows } = await h.store.query<{ ticket: string }>(
      `SELECT customer_reference AS ticket FROM orders
        WHERE customer_reference LIKE 'APR-%' AND status = 'awaiting_approval'`,
    );
    const [ticket, dm] = await firstDm(rows.map((r) => r.ticket));
    await clickApproval(h, MANAGER, dm, "approve_order");
    await h.waitForOrder(
      (o) => o.customerReference === ticket && !["awaiting_approval", "queued", "placing"].includes(o.status),
      `${ticket} approved and placed`,
    );
    expect(await count(PLACED)).toBe(6);

    const home = await adminHomeWithSpend(h);
    expect(JSON.stringify(home.definition.blocks)).toContain("*Acme EU* · €20,000.00 of €5,000.00 (400 %)");
  });
});
