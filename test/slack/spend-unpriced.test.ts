/**
 * A customer file without `currency` and prices, over the real wire, once per transport: Order Desk shows no
 * amount anywhere. The modal has no total and its line inputs dispatch nothing; the bundle menu has no prices; the
 * order keeps no total; its message, the approver's DM, App Home (an agent's and an admin's), `/order status` and
 * `/order export` show no amount, and nothing Order Desk sent to Slack names a currency.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomerConfig } from "../../src/config/customer.ts";
import { parseCsv } from "../helpers/csv.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { approvalDmFor, orderFor, texts } from "./support/approvals.ts";
import {
  AGENT,
  exampleConfig,
  type Harness,
  HELPDESK,
  MANAGER,
  startHarness,
  TRANSPORTS,
} from "./support/harness.ts";

/** In `admins` of the example customer file. */
const IT_LEAD = "U0ITLEAD";

/** The example file without its currency and prices; MANAGER approves headsets. */
function unpricedConfig(): CustomerConfig {
  const config = exampleConfig();
  delete config.currency;
  for (const item of config.catalog) delete item.price;
  config.profiles[0]!.approval = {
    approvers: [MANAGER],
    approverGroups: [],
    when: [{ itemNumbers: ["HS-ANC"] }],
    remindAfterHours: 24,
    expireAfterDays: 7,
  };
  return config;
}

/** Any amount or mention of one: a euro sign, the currency's code, a total. */
const AMOUNT = /€|EUR|[Tt]otal|Spend this month/;

describe.each(TRANSPORTS)("without prices over %s", (transport) => {
  let supplier: StubSupplier;
  let h: Harness;

  beforeAll(async () => {
    supplier = await startStubSupplier(Array.from({ length: 5 }, () => success()));
    h = await startHarness({
      transport,
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config: unpricedConfig(),
      users: [{ id: IT_LEAD, name: "ivy", realName: "Ivy Lead" }],
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  it("opens the modal without a total, price or dispatched line input", async () => {
    const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "NOP-0" });
    const view = await h.agent.openedModal(triggerId);
    const blocks = view.definition.blocks as {
      block_id?: string;
      dispatch_action?: boolean;
      elements?: { action_id?: string; options?: { description?: { text: string } }[] }[];
    }[];
    expect(blocks.map((b) => b.block_id)).not.toContain("lines_total");
    const lineInputs = blocks.filter((b) => /^line_\w+_(item|quantity)$/.test(b.block_id ?? ""));
    expect(lineInputs).toHaveLength(2);
    expect(lineInputs.map((b) => b.dispatch_action ?? false)).toEqual([false, false]);
    const bundles = blocks
      .find((b) => b.block_id === "line_actions")
      ?.elements?.find((e) => e.action_id === "add_bundle")?.options;
    expect(bundles?.map((o) => o.description?.text)).toEqual([
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

    const answered = h.fake.responses().length;
    await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "status NOP-1" });
    const status = await h.fake.waitFor(() => h.fake.responses()[answered], { what: "the status answer" });
    expect(JSON.stringify(status.body)).toContain("NOP-1");

    await h.store.query("UPDATE orders SET created_at = '2026-10-15T12:00:00Z'");
    await h.user(IT_LEAD).runCommand({ channel: HELPDESK, command: "/order", text: "export 2026-10" });
    const file = await h.fake.waitFor(
      () =>
        h.fake.files().find((f) => f.filename === "orders-2026-10.csv" && f.completed && f.shares.length > 0),
      { what: "the export shared", timeoutMs: 15_000 },
    );
    const [header, ...rows] = parseCsv(file.content?.toString("utf8") ?? "");
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
