/** Block Kit limits, checked with the fake Slack's validator (the rules Slack applies when it refuses a call). */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { emptyDraft } from "../../src/orders/draft.ts";
import type { Order } from "../../src/orders/model/order.ts";
import { buildHomeView } from "../../src/slack/blocks/home.ts";
import { orderMessage } from "../../src/slack/blocks/order-message.ts";
import { buildOrderModal, MAX_VIEW_BLOCKS } from "../../src/slack/blocks/order-modal.ts";
import { MAX_MODAL_LINES } from "../../src/slack/blocks/order-modal-lines.ts";
import { decodeMetadata, encodeMetadata } from "../../src/slack/metadata.ts";
import { formatProblems, validateBlocks, validateView } from "../../tools/fake-slack/blocks.ts";
import { exampleConfig } from "./support/harness.ts";

const customer = createCustomer(exampleConfig());
const long = (n: number) => "x".repeat(n);

function order(overrides: Partial<Order> = {}, lines = 1): Order {
  const now = new Date("2026-01-05T10:00:00Z");
  return {
    id: randomUUID(),
    profile: "Acme EU",
    externalDocumentNumber: "ABC-1-1",
    correlationId: null,
    customerReference: "ABC-1",
    requestedBy: "U0AGENT01",
    resubmittedBy: null,
    resubmittedAt: null,
    source: "command",
    idempotencyKey: null,
    slackTeamId: null,
    slackChannelId: "C0HELPDESK",
    slackMessageTs: null,
    slackThreadTs: null,
    messageAttemptedAt: null,
    status: "placing",
    statusAt: now,
    statusOccurredAt: null,
    failure: null,
    request: {
      externalDocumentNumber: "ABC-1-1",
      type: "New",
      customerReference: "ABC-1",
      invoice: { id: "INV-1" },
      consignee: null,
      shipping: {
        deliveryAt: "Home",
        contact: {
          firstName: "Nina <b>",
          lastName: long(300),
          phoneNumber: "+31 20 555 0101",
          email: "n@example.com",
        },
        address1: long(500),
        city: "Amsterdam",
        zipCode: "1015",
        countryIso2: "NL",
      },
      orderLines: Array.from({ length: lines }, (_, i) => ({
        itemNumber: i % 2 ? "LAP-14-PRO" : `UNKNOWN-${i}`,
        quantity: 1,
        comments: long(200),
      })),
    },
    draft: emptyDraft("Acme EU", "ABC-1"),
    workflow: null,
    tracking: null,
    createdAt: now,
    updatedAt: now,
    neededBy: null,
    expectedDelivery: null,
    expectedDeliverySource: null,
    total: null,
    currency: null,
    ...overrides,
  };
}

describe("the order modal", () => {
  it(`stays within ${MAX_VIEW_BLOCKS} blocks and every limit with ${MAX_MODAL_LINES} lines, errors and a profile select`, () => {
    const keys = Array.from({ length: MAX_MODAL_LINES }, (_, i) => i.toString(36));
    const draft = {
      ...emptyDraft("Acme EU", long(200)),
      firstName: long(5000),
      lines: keys.map(() => ({ itemNumber: "LAP-14-PRO", quantity: "1", comment: long(900) })),
    };
    const errors = Object.fromEntries(keys.map((_, i) => [`lines.${i}.quantity`, [long(3000)]]));
    const view = buildOrderModal({
      customer,
      draft,
      profiles: customer.config.profiles,
      meta: { v: 1, src: "command", ch: "C0HELPDESK", lk: keys, nk: keys.length },
      errors,
      notice: long(4000),
    });
    expect(view.blocks.length).toBeLessThanOrEqual(MAX_VIEW_BLOCKS);
    expect(formatProblems(validateView(view))).toEqual([]);
    const ids = view.blocks.map((b) => b.block_id).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it(`stays within ${MAX_VIEW_BLOCKS} blocks with ${MAX_MODAL_LINES} lines and every optional block: profiles, the date's late warning, the express checkbox, bundles, the total, the order number`, () => {
    const config = exampleConfig();
    config.currency = "EUR";
    for (const item of config.catalog) item.price = "1299.99";
    config.expressOrderType = { type: "Express", leadTimeDays: 2 };
    const full = createCustomer(config);
    expect(full.config.profiles.length).toBeGreaterThan(1);
    expect(full.config.bundles.length).toBeGreaterThan(0);
    expect(full.config.externalDocumentNumber.allowManual).toBe(true);
    const keys = Array.from({ length: MAX_MODAL_LINES }, (_, i) => i.toString(36));
    const view = buildOrderModal({
      customer: full,
      draft: {
        ...emptyDraft("Acme EU", "ONB-1"),
        neededBy: "2026-12-07",
        express: true,
        lines: keys.map(() => ({ itemNumber: "LAP-14-PRO", quantity: "99", comment: long(900) })),
      },
      profiles: full.config.profiles,
      meta: { v: 1, src: "command", ch: "C0HELPDESK", lk: keys, nk: keys.length, rw: long(150), xo: true },
      errors: { neededBy: [long(3000)] },
      notice: long(4000),
    });
    const ids = view.blocks.map((b) => b.block_id);
    expect(ids).toEqual(expect.arrayContaining(["needed_by", "express", "lines_total"]));
    expect(view.blocks.length).toBeLessThanOrEqual(MAX_VIEW_BLOCKS);
    expect(formatProblems(validateView(view))).toEqual([]);
  });

  it("never offers more lines than fit, and keeps its metadata small and checked on the way back", () => {
    const keys = Array.from({ length: 40 }, (_, i) => i.toString(36));
    const view = buildOrderModal({
      customer,
      draft: emptyDraft("Acme EU"),
      profiles: [customer.config.profiles[0]!],
      meta: { v: 1, src: "shortcut", ch: "C0HELPDESK", th: "1700000000.000100", lk: keys, nk: 40 },
    });
    expect(view.blocks.length).toBeLessThanOrEqual(MAX_VIEW_BLOCKS);
    expect(JSON.stringify(view.blocks)).not.toContain('"add_line"');
    const meta = decodeMetadata(view.private_metadata);
    expect(meta.lk).toHaveLength(MAX_MODAL_LINES);
    expect(view.private_metadata!.length).toBeLessThan(3000);
    expect(() => decodeMetadata('{"v":1,"src":"command","lk":["<script>"],"nk":1}')).toThrow(/not ours/);
    expect(() => decodeMetadata("not json")).toThrow(/not ours/);
    expect(() => encodeMetadata({ v: 1, src: "command", lk: [], nk: 0, pf: long(3000) })).toThrow(RangeError);
  });
});

describe("the order message", () => {
  it("shows a 500-line order within 50 blocks and the text limits, with user text escaped", () => {
    const message = orderMessage(order({}, 500), { customer });
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    expect(formatProblems(validateBlocks(message.blocks, "message", "/blocks"))).toEqual([]);
    expect(JSON.stringify(message.blocks)).toContain("Nina &lt;b&gt;");
    expect(JSON.stringify(message.blocks)).toMatch(/and \d+ more line\(s\)/);
  });

  it("offers Fix and resubmit only for an order the supplier refused or never got", () => {
    const rejected = order({
      status: "failed",
      failure: {
        kind: "rejected",
        reason: "rejected",
        code: "VALIDATION_FAILED",
        details: { "Shipping.City": ["'Shipping.City' is unknown."] },
      },
    });
    const shown = JSON.stringify(orderMessage(rejected, { customer }).blocks);
    expect(shown).toContain("fix_and_resubmit");
    expect(shown).toContain("City: Is unknown.");
    const placed = order({ status: "received", correlationId: randomUUID() });
    expect(JSON.stringify(orderMessage(placed, { customer }).blocks)).not.toContain("fix_and_resubmit");
  });

  it("escapes and shortens a ticket id and the supplier's reason in the notification text as in the blocks", () => {
    const hostile = order({
      customerReference: "<!channel> T-1",
      externalDocumentNumber: `<@U0BOSS>${long(5_000)}`,
      status: "failed",
      failure: {
        kind: "failed",
        reason: "unexpected",
        message: `refused <https://phish.example|here> ${long(900_000)}`,
      },
    });
    const { text } = orderMessage(hostile, { customer });
    // Names the order number and the ticket (what notifications show), both escaped and cut short.
    expect(text).toMatch(
      /^Not placed, order &lt;@U0BOSS&gt;x+… for &lt;!channel&gt; T-1: Refused &lt;https:\/\/phish/,
    );
    expect(text.length).toBeLessThan(700);
    const placed = orderMessage({ ...hostile, status: "received", failure: null }, { customer });
    expect(placed.text).toContain("(&lt;@U0BOSS&gt;xxx");
    expect(placed.text.length).toBeLessThan(300);
  });
});

describe("App Home", () => {
  it("lists recent orders within the limits", () => {
    const orders = Array.from({ length: 30 }, () =>
      order({ status: "received", correlationId: randomUUID() }),
    );
    const view = buildHomeView(orders);
    expect(view.blocks.length).toBeLessThanOrEqual(MAX_VIEW_BLOCKS);
    expect(formatProblems(validateView(view))).toEqual([]);
    expect(formatProblems(validateView(buildHomeView([])))).toEqual([]);
  });
});
