/**
 * The order modal's **Needed by** date over the real wire, once per transport (signed requests, Socket Mode
 * envelopes; the fake Slack, a scripted supplier), with the injected clock at Mon 30 Nov 2026: a date before the
 * expected delivery is warned about under the field, submitting the same again places the order at risk and says
 * so once, as a slipped estimate is (a thread reply also sent to the channel, the requester's DM, "Needs
 * attention"); the express order type is offered when it would be in time; today, the past and other formats are
 * refused inline.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tellPlacedAtRisk } from "../../src/orders/updates/placed-at-risk.ts";
import { EXPRESS_BLOCK, FIELD_BLOCK } from "../../src/slack/blocks/ids.ts";
import { listNotices } from "../../src/store/repositories/order-risk.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { failure, type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import {
  AGENT,
  exampleConfig,
  type Harness,
  HELPDESK,
  startHarness,
  TRANSPORTS,
  VALID_FORM,
} from "./support/harness.ts";

const NOW = new Date("2026-11-30T10:00:00Z");

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

type Block = { block_id?: string; hint?: { text: string }; element?: { type?: string } };

describe.each(TRANSPORTS)("the needed-by date in the order modal over %s", (transport) => {
  let supplier: StubSupplier;
  let h: Harness;
  let now = NOW;

  beforeAll(async () => {
    // ONB-1 and ONB-2 placed; ONB-4 refused, then placed once fixed.
    const refused = failure(422, "VALIDATION_FAILED", "One or more validation errors occurred.", {
      "Shipping.Contact.PhoneNumber": ["'Shipping.Contact.PhoneNumber' is not reachable by the carrier."],
    });
    supplier = await startStubSupplier([success(), success(), refused, success()]);
    const config = exampleConfig();
    config.leadTimes = { default: 5, countries: { NL: 7 }, items: {} };
    config.expressOrderType = { type: "Express", leadTimeDays: 2 };
    h = await startHarness({
      transport,
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config,
      now: () => now,
      workPostUpdates: true,
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  async function atRiskTold(orderId: string): Promise<boolean> {
    const notices = await listNotices(h.store, orderId);
    return notices.length > 0 && notices.every((n) => n.postedAt !== null && n.dmSentAt !== null);
  }

  async function openForm(ticket: string) {
    const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    return h.agent.openedModal(triggerId);
  }

  const form = (ticket: string, neededBy: string) => ({
    ...VALID_FORM,
    ticket,
    profile: "Acme EU",
    [FIELD_BLOCK.neededBy]: neededBy,
  });

  it("warns under the date when the order would arrive after it, then places it at risk when submitted again", async () => {
    const view = await openForm("ONB-1");
    const picker = (view.definition.blocks as Block[]).find((b) => b.block_id === FIELD_BLOCK.neededBy);
    expect(picker?.element?.type).toBe("datepicker");

    const warned = await h.agent.submit(view.id, form("ONB-1", "2026-12-07"));
    expect(warned.outcome.outcome).toBe("updated");
    const blocks = (h.fake.view(view.id)?.definition.blocks ?? []) as Block[];
    const hint = blocks.find((b) => b.block_id === FIELD_BLOCK.neededBy)?.hint?.text ?? "";
    expect(hint).toContain(
      "Usually delivered in 7 business days to the Netherlands: expected Wed 9 Dec, after the needed-by date. Submit anyway or change the date.",
    );
    expect(hint).toContain('Or tick "Use Express (2 business days)": expected Wed 2 Dec.');
    expect(blocks.some((b) => b.block_id === EXPRESS_BLOCK)).toBe(true);
    const none = await h.store.query(
      "SELECT count(*)::int AS n FROM orders WHERE customer_reference = 'ONB-1'",
    );
    expect(none.rows[0]?.n).toBe(0);

    const placed = await h.agent.submit(view.id, form("ONB-1", "2026-12-07"));
    expect(placed.outcome.outcome).toBe("closed");
    const order = await h.waitForOrder((o) => o.customerReference === "ONB-1", "ONB-1");
    expect(order).toMatchObject({
      neededBy: "2026-12-07",
      expectedDelivery: "2026-12-09",
      expectedDeliverySource: "lead_time",
    });
    expect(order.atRiskSince).toEqual(NOW);
    const shown = await h.waitForOrder(
      (o) => o.customerReference === "ONB-1" && o.slackMessageTs !== null,
      "ONB-1's message",
    );
    const message = h.fake.message(HELPDESK, shown.slackMessageTs!);
    expect(JSON.stringify(message?.blocks)).toContain("*At risk*: expected Wed 9 Dec, needed by Mon 7 Dec");

    // Told once it is placed, as a slipped estimate is: one reply, also in the channel, one DM, one item.
    const atRiskReplies = () =>
      h.fake.thread(HELPDESK, shown.slackMessageTs!).filter((m) => m.text.includes("At risk"));
    await until(() => atRiskTold(order.id), "the at-risk notice posted and its DM sent");
    const [reply, ...more] = atRiskReplies();
    expect(more).toEqual([]);
    expect(reply?.text).toContain("At risk: expected Wed 9 Dec, needed by Mon 7 Dec");
    expect(reply?.replyBroadcast).toBe(true);
    // The DM is claimed (dm_sent_at) just before it is sent.
    const dmsOf = () => h.fake.dm(AGENT).filter((m) => m.text.includes(order.externalDocumentNumber));
    const dms = await h.fake.waitFor(() => dmsOf().length > 0 && dmsOf());
    expect(dms.map((m) => m.text)).toEqual([
      expect.stringContaining(`Your order ${order.externalDocumentNumber} may arrive late.`),
    ]);
    const items = await h.store.query(
      "SELECT count(*)::int AS n FROM attention_items WHERE kind = 'at_risk_order' AND subject = $1 AND resolved_at IS NULL",
      [order.id],
    );
    expect(items.rows[0]?.n).toBe(1);

    // A placement run repeated (a retry after a crash) tells nothing more.
    await tellPlacedAtRisk({ store: h.store, jobs: h.jobs }, await h.order(order.id));
    await h.postUpdates.postOrderUpdates(order.id);
    expect(atRiskReplies()).toHaveLength(1);
    expect(dmsOf()).toHaveLength(1);
    expect((await listNotices(h.store, order.id)).map((n) => n.kind)).toEqual(["at_risk"]);
  });

  it("sends the order as the express type when the agent ticks it, in time and without a warning", async () => {
    const view = await openForm("ONB-2");
    const warned = await h.agent.submit(view.id, form("ONB-2", "2026-12-07"));
    expect(warned.outcome.outcome).toBe("updated");
    const placed = await h.agent.submit(view.id, { [EXPRESS_BLOCK]: ["express"] });
    expect(placed.outcome.outcome).toBe("closed");
    const order = await h.waitForOrder((o) => o.customerReference === "ONB-2", "ONB-2");
    expect(order.request.type).toBe("Express");
    expect(order).toMatchObject({ expectedDelivery: "2026-12-02", atRiskSince: null });
  });

  it("refuses today, the past and other formats on the field, naming it", async () => {
    const view = await openForm("ONB-3");
    for (const typed of [
      "2026-11-30",
      "2026-11-01",
      "07/12/2026",
      "2026-02-30",
      "not a date",
      "2031-01-01",
    ]) {
      const refused = await h.agent.submit(view.id, form("ONB-3", typed));
      expect(refused.outcome.outcome, typed).toBe("errors");
      const errors = (refused.response.body as { errors?: Record<string, string> }).errors ?? {};
      expect(errors[FIELD_BLOCK.neededBy], typed).toMatch(/Needed by|needed by/);
    }
    const none = await h.store.query(
      "SELECT count(*)::int AS n FROM orders WHERE customer_reference = 'ONB-3'",
    );
    expect(none.rows[0]?.n).toBe(0);
  });

  it("Fix and resubmit recomputes the needed-by date and the expected delivery, and warns again", async () => {
    const view = await openForm("ONB-4");
    expect((await h.agent.submit(view.id, form("ONB-4", "2026-12-14"))).outcome.outcome).toBe("closed");
    const rejected = await h.waitForOrder(
      (o) => o.customerReference === "ONB-4" && o.status === "failed" && o.slackMessageTs !== null,
      "ONB-4 refused",
    );
    expect(rejected).toMatchObject({
      neededBy: "2026-12-14",
      expectedDelivery: "2026-12-09",
      atRiskSince: null,
    });
    const message = await h.fake.waitFor(() => {
      const m = h.fake.message(HELPDESK, rejected.slackMessageTs!);
      return m && JSON.stringify(m.versions.at(-1)?.blocks).includes("Fix and resubmit") ? m : undefined;
    });

    // Fixed a day later: 7 business days from Tue 1 Dec is Thu 10 Dec, after the new needed-by date.
    now = new Date("2026-12-01T10:00:00Z");
    try {
      const click = await h.agent.clickInMessage({
        channel: HELPDESK,
        ts: message.ts,
        actionId: "fix_and_resubmit",
      });
      const fix = await h.agent.openedModal(click.triggerId);
      const fixed = { phone: "+31 6 1234 5678", [FIELD_BLOCK.neededBy]: "2026-12-09" };
      const warned = await h.agent.submit(fix.id, fixed);
      expect(warned.outcome.outcome).toBe("updated");
      const blocks = (h.fake.view(fix.id)?.definition.blocks ?? []) as Block[];
      expect(blocks.find((b) => b.block_id === FIELD_BLOCK.neededBy)?.hint?.text).toContain(
        "expected Thu 10 Dec, after the needed-by date",
      );
      expect((await h.order(rejected.id)).status).toBe("failed");

      expect((await h.agent.submit(fix.id, fixed)).outcome.outcome).toBe("closed");
      const placed = await h.waitForOrder(
        (o) => o.id === rejected.id && o.correlationId !== null,
        "ONB-4 placed after the fix",
      );
      expect(placed).toMatchObject({
        neededBy: "2026-12-09",
        expectedDelivery: "2026-12-10",
        expectedDeliverySource: "lead_time",
      });
      expect(placed.atRiskSince).toEqual(now);
      await until(() => atRiskTold(placed.id), "the resubmitted order's at-risk notice");
      const replies = h.fake
        .thread(HELPDESK, rejected.slackMessageTs!)
        .filter((m) => m.text.includes("At risk"))
        .map((m) => m.text);
      expect(replies).toEqual([expect.stringContaining("At risk: expected Thu 10 Dec, needed by Wed 9 Dec")]);
    } finally {
      now = NOW;
    }
  });
});
