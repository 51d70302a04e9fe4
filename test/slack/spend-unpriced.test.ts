/**
 * A customer file without `currency` and prices, over the real wire, once per transport: Order Desk shows no
 * amount anywhere. The modal has no total and its line inputs dispatch nothing; the bundle menu has no prices; the
 * order keeps no total; its message, the approver's DM, App Home (an agent's and an admin's), `/order status` and
 * `/order export` show no amount, and nothing Order Desk sent to Slack names a currency.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomerConfig } from "../../src/config/customer.ts";
import { successes } from "../supplier/support/stub-supplier.ts";
import { approvalDmFor, orderFor, texts } from "./support/approvals.ts";
import {
  AGENT,
  exampleConfig,
  HELPDESK,
  lineMenuOptions,
  MANAGER,
  openOrderModal,
  type StubbedHarness,
  startOnStubSupplier,
  TRANSPORTS,
} from "./support/harness.ts";
import { answerTo, exportedOctober, IT_LEAD, IT_LEAD_USER, managerApproval } from "./support/spend.ts";

/** The example file without its currency and prices; MANAGER approves headsets. */
function unpricedConfig(): CustomerConfig {
  const config = exampleConfig();
  delete config.currency;
  for (const item of config.catalog) delete item.price;
  config.profiles[0]!.approval = managerApproval([{ itemNumbers: ["HS-ANC"] }]);
  return config;
}

/** Any amount or mention of one: a euro sign, the currency's code, a total. */
const AMOUNT = /€|EUR|[Tt]otal|Spend this month/;

describe.each(TRANSPORTS)("without prices over %s", (transport) => {
  let h: StubbedHarness;

  beforeAll(async () => {
    h = await startOnStubSupplier(successes(5), {
      transport,
      config: unpricedConfig(),
      users: [IT_LEAD_USER],
    });
  });

  afterAll(() => h?.close());

  it("opens the modal without a total, price or dispatched line input", async () => {
    const view = await openOrderModal(h, "NOP-0");
    const blocks = view.definition.blocks as { block_id?: string; dispatch_action?: boolean }[];
    expect(blocks.map((b) => b.block_id)).not.toContain("lines_total");
    const lineInputs = blocks.filter((b) => /^line_\w+_(item|quantity)$/.test(b.block_id ?? ""));
    expect(lineInputs).toHaveLength(2);
    expect(lineInputs.map((b) => b.dispatch_action ?? false)).toEqual([false, false]);
    expect(lineMenuOptions(blocks, "add_bundle").map((o) => o.description?.text)).toEqual([
      "Everything a new remote hire needs on day one.",
      undefined,
    ]);
    expect(texts(blocks)).not.toMatch(AMOUNT);
  });

  it("shows no amount in the order's message, the approver's DM, App Home, /order status or the export", async () => {
    const placed = await orderFor(h, "NOP-1", {
      line_0_item: { value: "PHONE-STD", text: "Smartphone (standard) (PHONE-STD)" },
      line_0_quantity: "3",
    });
    expect([placed.total, placed.currency, placed.linePrices]).toEqual([null, null, null]);
    const shown = await h.waitForOrder(
      (o) =>
        o.id === placed.id && o.slackMessageTs !== null && o.status !== "queued" && o.status !== "placing",
      "NOP-1 placed and shown",
    );
    const message = h.fake.message(HELPDESK, shown.slackMessageTs ?? "");
    expect(texts(message?.versions.at(-1)?.blocks)).toContain("3 × Smartphone (standard) (PHONE-STD)");

    await orderFor(h, "NOP-2", {
      line_0_item: { value: "HS-ANC", text: "Headset with noise cancelling (HS-ANC)" },
    });
    const dm = await h.fake.waitFor(() => approvalDmFor(h, MANAGER, "NOP-2"), { what: "the approver's DM" });
    expect(texts(dm.versions.at(-1)?.blocks)).toContain("Headset with noise cancelling");

    for (const user of [AGENT, IT_LEAD]) {
      await h.requests.appHomeOpened({ userId: user });
      await h.fake.waitFor(() => h.fake.homeView(user), { what: `${user}'s Home` });
    }
    await h.fake.waitFor(
      () => texts(h.fake.homeView(AGENT)?.definition.blocks).includes("NOP-1") || undefined,
      { what: "the agent's Home with NOP-1" },
    );

    const status = await answerTo(h, h.agent, "status NOP-1", "the status answer");
    expect(JSON.stringify(status.body)).toContain("NOP-1");

    const [header, ...rows] = await exportedOctober(h);
    expect(rows).toHaveLength(2);
    expect(header?.at(-1)).toBe("late_days");
    expect(header).not.toContain("order_total");

    // Everything Order Desk asked of Slack (posts, updates, views, DMs) and answered on response URLs.
    const sent = h.fake.calls().map((c) => `${c.method} ${JSON.stringify(c.args)}`);
    expect(sent.length).toBeGreaterThan(10);
    expect(sent.filter((c) => AMOUNT.test(c))).toEqual([]);
    expect(h.fake.responses().filter((r) => AMOUNT.test(JSON.stringify(r.body)))).toEqual([]);
  });
});
