/**
 * Prices over the real wire, once per transport: the modal's total follows the lines as items are chosen,
 * quantities typed, a bundle added and a line removed (block actions → views.update), the accepted order keeps its
 * exact total, and its message, App Home, `/order status` and the approver's DM show it; an item limited to other
 * countries is flagged under its line as it is chosen (and as the country changes) and refused there at
 * submission; the bundle menu shows prices; `/order export`'s money columns add up to the orders' stored totals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/orders/money.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { getOrderByIdempotencyKey } from "../../src/store/repositories/orders.ts";
import type { BlockAction } from "../../tools/slack-payloads.ts";
import {
  AGENT,
  type Harness,
  HELPDESK,
  lineMenuOptions,
  MANAGER,
  openOrderModal,
  startHarness,
  submitOrderForm,
  TRANSPORTS,
  VALID_FORM,
} from "./support/harness.ts";
import { answerTo, exportedOctober, IT_LEAD_USER, managerApproval, pricedConfig } from "./support/spend.ts";

const PRICES: Record<string, string> = { "LAP-14-PRO": "2149", "PHONE-STD": "649.9", "MON-27-4K": "429.90" };

/** These prices, any other item at €10; the monitor ships to the United States and Canada only. */
function totalsConfig() {
  const config = pricedConfig(PRICES, "10");
  for (const item of config.catalog) if (item.itemNumber === "MON-27-4K") item.countries = ["US", "CA"];
  config.profiles[0]!.approval = managerApproval([{ itemNumbers: ["HS-ANC"] }]);
  return config;
}

function totalText(blocks: unknown): string | undefined {
  const block = (blocks as { block_id?: string; elements?: { text?: string }[] }[]).find(
    (b) => b.block_id === "lines_total",
  );
  return block?.elements?.[0]?.text;
}

/** The hint under the first line's item: where the form says the item does not ship to the chosen country. */
function itemHint(blocks: unknown): string | undefined {
  const block = (blocks as { block_id?: string; hint?: { text?: string } }[]).find(
    (b) => b.block_id === "line_0_item",
  );
  return block?.hint?.text;
}

/** The form's menus that dispatch a block action when something is chosen in them. */
const MENUS = {
  item: { type: "external_select", action_id: "line_item", block_id: "line_0_item" },
  country: { type: "external_select", action_id: "country", block_id: "country" },
  bundle: { type: "static_select", action_id: "add_bundle", block_id: "line_actions" },
  removeLine: { type: "static_select", action_id: "remove_line", block_id: "line_actions" },
} as const;

/** A menu's option as Slack sends it back. */
const option = (text: string, value: string) => ({ text: { type: "plain_text", text }, value });

const PHONE = { value: "PHONE-STD", text: "Smartphone (standard) (PHONE-STD)" };
/** Shipped only to the United States and Canada. */
const MONITOR = { value: "MON-27-4K", text: 'Monitor 27" 4K USB-C (MON-27-4K)' };

describe.each(TRANSPORTS)("over %s", (transport) => {
  let sandbox: SandboxHandle;
  let h: Harness;

  beforeAll(async () => {
    const key = generateTestKey();
    sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: `spend-totals-${transport}` });
    h = await startHarness({
      transport,
      supplierUrl: sandbox.url,
      apiKey: key,
      config: totalsConfig(),
      users: [IT_LEAD_USER],
    });
  });

  afterAll(async () => {
    await h?.close();
    await sandbox?.close();
  });

  /** What Slack sends when a line input with `dispatch_action` changes, then the rebuilt view. */
  async function dispatch(viewId: string, action: BlockAction, what: string) {
    const before = h.fake.view(viewId)?.versions ?? 0;
    await h.requests.blockActions({
      userId: AGENT,
      triggerId: h.fake.issueTriggerId(AGENT),
      view: h.fake.viewPayload(viewId),
      actions: [action],
    });
    return h.fake.waitFor(
      () => {
        const v = h.fake.view(viewId);
        return v && v.versions > before ? v : undefined;
      },
      { what },
    );
  }

  /** `selected` chosen in one of the form's menus, then the rebuilt view. */
  const choose = (viewId: string, menu: keyof typeof MENUS, selected: unknown, what: string) =>
    dispatch(viewId, { ...MENUS[menu], selected_option: selected }, what);

  /** The phone chosen on the first line, then the rebuilt view. */
  async function choosePhone(viewId: string) {
    h.agent.fill(viewId, { line_0_item: PHONE });
    return choose(viewId, "item", option("Smartphone", PHONE.value), "the total after choosing the phone");
  }

  it("keeps the modal's total current as items and quantities change, and the order keeps it", async () => {
    const view = await openOrderModal(h, "SPEND-1");
    expect(totalText(view.definition.blocks)).toBe("*Total:* choose an item to see the total");
    const chosen = await choosePhone(view.id);
    expect(totalText(chosen.definition.blocks)).toBe("*Total: €649.90*");
    h.agent.fill(view.id, { line_0_quantity: "3" });
    const typed = await dispatch(
      view.id,
      { type: "number_input", action_id: "line_quantity", block_id: "line_0_quantity", value: "3" },
      "the total after typing 3",
    );
    expect(totalText(typed.definition.blocks)).toBe("*Total: €1,949.70*");
    // The typed values are kept by the rebuild.
    expect(typed.values.line_0_quantity?.line_quantity).toMatchObject({ value: "3" });

    const submitted = await submitOrderForm(h, view.id, "SPEND-1", {
      line_0_item: PHONE,
      line_0_quantity: "3",
    });
    expect(submitted.outcome.outcome).toBe("closed");
    const stored = await getOrderByIdempotencyKey(h.store, `view:${view.id}`);
    expect(Number(stored?.total)).toBe(1949.7);
    expect(stored?.currency).toBe("EUR");
    expect(stored?.linePrices).toEqual(["649.90"]);

    const posted = await h.waitForOrder(
      (o) => o.id === stored?.id && o.slackMessageTs !== null,
      "the order's message",
    );
    const message = await h.fake.waitFor(
      () => {
        const m = h.fake.message(HELPDESK, posted.slackMessageTs ?? "");
        return m && JSON.stringify(m.versions.at(-1)?.blocks).includes("Total") ? m : undefined;
      },
      { what: "the order message with its total" },
    );
    const shown = JSON.stringify(message.versions.at(-1)?.blocks);
    expect(shown).toContain("3 × Smartphone (standard) (PHONE-STD) · €649.90 each, €1,949.70");
    expect(shown).toContain("*Total: €1,949.70*");

    const opened = {
      token: "t",
      team_id: h.fake.teamId,
      api_app_id: h.fake.appId,
      type: "event_callback",
      event_id: `Ev0SPEND${transport}`,
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: "app_home_opened",
        user: AGENT,
        channel: "D0AGENT01",
        tab: "home",
        event_ts: "1.000001",
      },
    };
    expect(
      (await h.requests.send({ body: JSON.stringify(opened), contentType: "application/json" })).status,
    ).toBe(200);
    const home = await h.fake.waitFor(
      () => {
        const v = h.fake.homeView(AGENT);
        return v && JSON.stringify(v.definition.blocks).includes("€1,949.70") ? v : undefined;
      },
      { what: "App Home with the total" },
    );
    expect(JSON.stringify(home.definition.blocks)).toContain("1 line(s) · €1,949.70");

    const answer = await answerTo(h, h.agent, "status SPEND-1", "the status answer");
    expect(JSON.stringify(answer.body)).toContain("*Total:* €1,949.70");
  });

  it("refuses an item that does not ship to the delivery's country under its line, naming where it ships", async () => {
    const view = await openOrderModal(h, "SPEND-2");
    const refused = await submitOrderForm(h, view.id, "SPEND-2", { line_0_item: MONITOR });
    expect(refused.outcome).toEqual({ outcome: "errors", problems: [] });
    const errors = h.fake.view(view.id)?.errors ?? {};
    expect(errors).toEqual({
      line_0_item:
        'Monitor 27" 4K USB-C (MON-27-4K) is not shipped to Netherlands: it ships only to United States (US) or Canada (CA).',
    });
    expect(await getOrderByIdempotencyKey(h.store, `view:${view.id}`)).toBeNull();
  });

  it("says under the line, while choosing, that an item does not ship to the chosen country; a new country clears it", async () => {
    const view = await openOrderModal(h, "SPEND-4");
    h.agent.fill(view.id, { country: VALID_FORM.country, line_0_item: MONITOR });
    const chosen = await choose(
      view.id,
      "item",
      option(MONITOR.text, MONITOR.value),
      "the form after choosing the monitor",
    );
    expect(itemHint(chosen.definition.blocks)).toBe(
      '⚠️ Monitor 27" 4K USB-C (MON-27-4K) is not shipped to Netherlands: it ships only to United States (US) or Canada (CA).',
    );
    h.agent.fill(view.id, { country: { value: "US", text: "United States (US)" } });
    const moved = await choose(
      view.id,
      "country",
      option("United States (US)", "US"),
      "the form after choosing the United States",
    );
    expect(itemHint(moved.definition.blocks)).toBeUndefined();
    expect(totalText(moved.definition.blocks)).toBe("*Total: €429.90*");
  });

  it("shows each bundle's price in the bundle menu", async () => {
    const view = await openOrderModal(h, "SPEND-5");
    const menu = lineMenuOptions(view.definition.blocks, "add_bundle");
    expect(menu.map((o) => [o.text.text, o.description?.text])).toEqual([
      // 2,149 + 429.90 + four items at 10.
      ["Remote starter kit", "€2,618.90 · Everything a new remote hire needs on day one."],
      ["Desk refresh", "€869.80"],
    ]);
  });

  it("shows the approver each line's price and the order's total", async () => {
    const view = await openOrderModal(h, "SPEND-3");
    const submitted = await submitOrderForm(h, view.id, "SPEND-3", {
      line_0_item: { value: "HS-ANC", text: "Headset with noise cancelling (HS-ANC)" },
      line_0_quantity: "2",
    });
    expect(submitted.outcome.outcome).toBe("closed");
    const dm = await h.fake.waitFor(
      () => h.fake.dm(MANAGER).find((m) => JSON.stringify(m.versions.at(-1)?.blocks).includes("SPEND-3")),
      { what: "the approver's DM" },
    );
    const shown = JSON.stringify(dm.versions.at(-1)?.blocks);
    expect(shown).toContain("2 × Headset with noise cancelling (HS-ANC) · €10.00 each, €20.00");
    expect(shown).toContain("*Total* €20.00");
  });

  it("keeps the modal's total current as a bundle is added and a line removed", async () => {
    const view = await openOrderModal(h, "SPEND-6");
    await choosePhone(view.id);
    const withBundle = await choose(
      view.id,
      "bundle",
      option("Desk refresh", "1"),
      "the total after adding the desk refresh",
    );
    // 649.90 + 2 × 429.90 + 10.
    expect(totalText(withBundle.definition.blocks)).toBe("*Total: €1,519.70*");
    const phoneLine = lineMenuOptions(withBundle.definition.blocks, "remove_line").find((o) =>
      o.text.text.startsWith("Line 1: Smartphone"),
    );
    expect(phoneLine).toBeDefined();
    const removed = await choose(view.id, "removeLine", phoneLine!, "the total after removing the phone");
    expect(totalText(removed.definition.blocks)).toBe("*Total: €869.80*");

    // Placed (to the United States, where the monitor ships): the order keeps the total the form showed.
    const { line_0_item: _item, line_0_quantity: _quantity, ...delivery } = VALID_FORM;
    const submitted = await h.agent.submit(view.id, {
      ...delivery,
      ticket: "SPEND-6",
      profile: "Acme EU",
      country: { value: "US", text: "United States (US)" },
      state: "NY",
      zip: "10001",
    });
    expect(submitted.outcome, JSON.stringify(h.fake.view(view.id)?.errors)).toMatchObject({
      outcome: "closed",
    });
    const stored = await getOrderByIdempotencyKey(h.store, `view:${view.id}`);
    expect(stored?.request.orderLines.map((l) => `${l.quantity} ${l.itemNumber}`)).toEqual([
      "2 MON-27-4K",
      "1 DOCK-USBC",
    ]);
    expect(stored?.linePrices).toEqual(["429.90", "10.00"]);
    expect(Decimal.parse(stored?.total ?? "").toFixed(2)).toBe("869.80");
  });

  it("exports the orders with money columns that add up to their stored totals", async () => {
    const { rows: stored } = await h.store.query<{ number: string; total: string }>(
      "SELECT external_document_number AS number, total FROM orders WHERE total IS NOT NULL",
    );
    // The orders of the tests above (the phones, the desk refresh, the headsets), in one month.
    expect(stored.length).toBeGreaterThanOrEqual(3);
    const [header, ...rows] = await exportedOctober(h);
    const col = (name: string) => (header as string[]).indexOf(name);
    expect(header?.slice(-4)).toEqual(["unit_prices", "line_totals", "order_total", "currency"]);
    expect(rows).toHaveLength(stored.length);
    let exported = Decimal.ZERO;
    for (const row of rows) {
      const number = row[col("order_number")] as string;
      const total = row[col("order_total")] as string;
      const lineTotals = (row[col("line_totals")] as string).split("; ").map((t) => Decimal.parse(t));
      expect(Decimal.sum(lineTotals).toFixed(2), number).toBe(total);
      expect(total, number).toBe(Decimal.parse(stored.find((o) => o.number === number)!.total).toFixed(2));
      expect(row[col("currency")]).toBe("EUR");
      exported = exported.plus(Decimal.parse(total));
    }
    expect(exported.toFixed(2)).toBe(Decimal.sum(stored.map((o) => Decimal.parse(o.total))).toFixed(2));
    expect(rows.find((r) => r[col("order_total")] === "1949.70")?.[col("unit_prices")]).toBe("649.90");
    const kit = rows.find((r) => r[col("order_total")] === "869.80");
    expect([kit?.[col("unit_prices")], kit?.[col("line_totals")]]).toEqual([
      "429.90; 10.00",
      "859.80; 10.00",
    ]);
  });
});
