/**
 * The supplier refuses an order for a reason our copy of its rules does not know (a scripted supplier on real
 * HTTP answers VALIDATION_FAILED once, then accepts): the message explains it in plain words, "Fix and resubmit"
 * reopens the modal with the values sent and the objection under its field, and the corrected order is placed.
 * Only the requester sees the recipient's contact and address in that form; a colleague who resubmits is recorded
 * and shown on the message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATUS_LINE_BLOCK_ID } from "../../src/slack/blocks/updates/status-line.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { failure, type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import {
  AGENT,
  type Harness,
  HELPDESK,
  MANAGER,
  OUTSIDER,
  startHarness,
  TRANSPORTS,
  VALID_FORM,
} from "./support/harness.ts";

describe.each(TRANSPORTS)("Fix and resubmit over %s", (transport) => {
  let supplier: StubSupplier;
  let h: Harness;
  const CORRELATION_ID = "5f0c6a52-3f5e-4f7e-9c61-0d8a2b7e4a11";

  const REFUSED = failure(422, "VALIDATION_FAILED", "One or more validation errors occurred.", {
    "Shipping.Contact.PhoneNumber": ["'Shipping.Contact.PhoneNumber' is not reachable by the carrier."],
    "OrderLines[0].Quantity": ["'OrderLines[0].Quantity' exceeds the agreed maximum of 1."],
  });

  beforeAll(async () => {
    // One script per test, in order: refused then accepted, then refused again for the second test.
    supplier = await startStubSupplier([REFUSED, success(CORRELATION_ID), REFUSED, success()]);
    h = await startHarness({ transport, supplierUrl: supplier.baseUrl, apiKey: TEST_KEY });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  const texts = (blocks: unknown) => JSON.stringify(blocks);

  it("shows the supplier's objections on the message and on the reopened form, and places the fixed order", async () => {
    const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "FIX-1" });
    const view = await h.agent.openedModal(triggerId);
    const submitted = await h.agent.submit(view.id, {
      ...VALID_FORM,
      ticket: "FIX-1",
      profile: "Acme EU",
      line_0_quantity: "3",
    });
    expect(submitted.outcome.outcome).toBe("closed");

    const rejected = await h.waitForOrder(
      (o) => o.customerReference === "FIX-1" && o.status === "failed",
      "rejection",
    );
    const message = await h.fake.waitFor(() => {
      const m = h.fake.message(rejected.slackChannelId ?? "", rejected.slackMessageTs ?? "");
      return m && texts(m.versions.at(-1)?.blocks).includes("Fix and resubmit") ? m : undefined;
    });
    const shown = texts(message.versions.at(-1)?.blocks);
    expect(shown).toContain("Phone: Is not reachable by the carrier.");
    expect(shown).toContain("Line 1 quantity: Exceeds the agreed maximum of 1.");

    const click = await h.agent.clickInMessage({
      channel: HELPDESK,
      ts: message.ts,
      actionId: "fix_and_resubmit",
    });
    const fix = await h.agent.openedModal(click.triggerId);
    expect(fix.definition.title).toMatchObject({ text: "Fix order" });
    const blocks = fix.definition.blocks as {
      block_id?: string;
      hint?: { text: string };
      element?: { initial_value?: string };
    }[];
    const phone = blocks.find((b) => b.block_id === "phone");
    expect(phone?.element?.initial_value).toBe("+31 20 555 0101");
    expect(phone?.hint?.text).toBe("⚠️ Is not reachable by the carrier.");
    expect(blocks.find((b) => b.block_id === "line_0_quantity")?.hint?.text).toMatch(/agreed maximum/);

    const resubmitted = await h.agent.submit(fix.id, { phone: "+31 6 1234 5678", line_0_quantity: "1" });
    expect(resubmitted.outcome.outcome).toBe("closed");

    const placed = await h.waitForOrder((o) => o.id === rejected.id && o.status === "received", "placement");
    expect(placed.correlationId).toBe(CORRELATION_ID);
    expect(placed.externalDocumentNumber).toBe(rejected.externalDocumentNumber);
    expect(placed.slackMessageTs).toBe(rejected.slackMessageTs);
    const sent = JSON.parse(supplier.requests.at(-1)!.body);
    expect(sent.shipping.contact.phoneNumber).toBe("+31 6 1234 5678");
    expect(sent.orderLines[0].quantity).toBe(1);

    const updated = await h.fake.waitFor(() => {
      const latest = h.fake.message(HELPDESK, message.ts)?.versions.at(-1);
      return latest && texts(latest.blocks).includes(CORRELATION_ID) ? latest : undefined;
    });
    expect(texts(updated.blocks)).not.toContain("Fix and resubmit");
    const status = (updated.blocks as { block_id?: string; elements?: { text: string }[] }[]).find(
      (b) => b.block_id === STATUS_LINE_BLOCK_ID,
    );
    expect(status?.elements?.[0]?.text).toMatch(/Received/);

    // A stale copy of the button (clicked on another device before the update arrived) gets a clear answer.
    await h.requests.blockActions({
      userId: AGENT,
      triggerId: h.fake.issueTriggerId(AGENT),
      message: {
        channelId: HELPDESK,
        message: { ts: message.ts, text: "", blocks: message.versions[1]?.blocks },
      },
      responseUrl: h.fake.responseUrl(),
      actions: [
        { type: "button", action_id: "fix_and_resubmit", block_id: "order_actions", value: rejected.id },
      ],
    });
    const answer = await h.fake.waitFor(() =>
      h.fake.responses().find((r) => JSON.stringify(r.body).includes("can no longer be resubmitted")),
    );
    expect(answer.body).toMatchObject({ response_type: "ephemeral", replace_original: false });
  });

  it("refuses someone the profile does not allow; a colleague who may order resubmits without seeing the recipient's contact, and is named on the message", async () => {
    const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "FIX-2" });
    await h.agent.submit((await h.agent.openedModal(triggerId)).id, {
      ...VALID_FORM,
      ticket: "FIX-2",
      profile: "Acme EU",
    });
    const rejected = await h.waitForOrder(
      (o) => o.customerReference === "FIX-2" && o.status === "failed",
      "FIX-2 rejected",
    );
    const message = await h.fake.waitFor(() => {
      const m = h.fake.message(HELPDESK, rejected.slackMessageTs ?? "");
      return m && texts(m.versions.at(-1)?.blocks).includes("Fix and resubmit") ? m : undefined;
    });

    const outsider = h.user(OUTSIDER);
    const click = await outsider.clickInMessage({
      channel: HELPDESK,
      ts: message.ts,
      actionId: "fix_and_resubmit",
    });
    expect(click.response.status).toBe(200);
    const answer = await h.fake.waitFor(
      () => h.fake.responses().find((r) => JSON.stringify(r.body).includes("cannot resubmit order")),
      { what: "the ephemeral refusal" },
    );
    expect(answer.body).toMatchObject({ response_type: "ephemeral", replace_original: false });
    const text = (answer.body as { text: string }).text;
    expect(text).toContain(`You cannot resubmit order ${rejected.externalDocumentNumber}`);
    expect(text).toContain('the profile "Acme EU"');
    // Who can: the profile's users and user groups, and who placed it.
    expect(text).toContain(`<@${AGENT}>`);
    expect(text).toContain("members of <!subteam^S0HELPDESK>");
    expect(text).toContain(`<@${AGENT}> placed it.`);
    // No form: the recipient's address, phone and e-mail stay hidden.
    expect(h.fake.views({ openedWithTrigger: click.triggerId })).toEqual([]);
    expect(h.fake.calls("views.open").filter((c) => c.args.trigger_id === click.triggerId)).toEqual([]);

    // When Slack does not open the form, the person who clicked is told what happened and what to do.
    h.fake.failNext("views.open", "expired_trigger_id");
    await h.agent.clickInMessage({ channel: HELPDESK, ts: message.ts, actionId: "fix_and_resubmit" });
    const tooSlow = await h.fake.waitFor(
      () => h.fake.responses().find((r) => JSON.stringify(r.body).includes("Slack took too long")),
      { what: "the ephemeral answer that the form did not open" },
    );
    expect(tooSlow.body).toMatchObject({
      response_type: "ephemeral",
      text: "Slack took too long to open the order form; click Fix and resubmit again.",
    });

    // A member of an allowed user group may: the form opens for them, with the order's lines and ticket but
    // without the recipient's contact and address, which only the requester sees.
    const manager = h.user(MANAGER);
    const allowed = await manager.clickInMessage({
      channel: HELPDESK,
      ts: message.ts,
      actionId: "fix_and_resubmit",
    });
    const fix = await manager.openedModal(allowed.triggerId);
    expect(fix.definition.title).toMatchObject({ text: "Fix order" });
    const shownTo = (blocks: unknown) =>
      Object.fromEntries(
        (blocks as { block_id?: string; element?: { initial_value?: string } }[]).map((b) => [
          b.block_id,
          b.element?.initial_value,
        ]),
      );
    const values = shownTo(fix.definition.blocks);
    for (const field of ["first_name", "last_name", "email", "phone", "address1", "city", "zip"]) {
      expect(values[field], field).toBeUndefined();
    }
    expect(values.ticket).toBe("FIX-2");
    const form = JSON.stringify(fix.definition.blocks);
    for (const personal of ["Nina", "Newhire", "nina@example.com", "555 0101", "Keizersgracht", "1015 CJ"]) {
      expect(form).not.toContain(personal);
    }
    expect(form).toContain(
      `Only <@${AGENT}>, who asked for this order, sees its recipient's contact and address`,
    );

    // Submitting it as it is asks for them; typed anew (another address), the order is resubmitted and placed.
    const blank = await manager.submit(fix.id);
    expect(blank.outcome.outcome).not.toBe("closed");
    const resubmitted = await manager.submit(fix.id, {
      first_name: "Nina",
      last_name: "Newhire",
      email: "nina@example.com",
      phone: "+31 6 1234 5678",
      address1: "Prinsengracht 263",
      city: "Amsterdam",
      zip: "1016 GV",
    });
    expect(resubmitted.outcome.outcome).toBe("closed");
    const placed = await h.waitForOrder(
      (o) => o.id === rejected.id && o.status === "received",
      "FIX-2 placed",
    );
    expect(placed).toMatchObject({ requestedBy: AGENT, resubmittedBy: MANAGER });
    expect(placed.resubmittedAt).toBeInstanceOf(Date);
    expect(placed.request.shipping.address1).toBe("Prinsengracht 263");

    // The order's message says who asked and who resubmitted it.
    const shown = await h.fake.waitFor(() => {
      const latest = h.fake.message(HELPDESK, message.ts)?.versions.at(-1);
      return latest && texts(latest.blocks).includes("resubmitted by") ? latest : undefined;
    });
    expect(texts(shown.blocks)).toContain(`requested by <@${AGENT}> · resubmitted by <@${MANAGER}>`);
  });
});
