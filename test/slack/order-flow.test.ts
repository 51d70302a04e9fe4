/**
 * `/order` end to end, once per transport: signed Slack requests → Bolt's HTTP receiver, or envelopes over the
 * fake Slack's WebSocket → the Socket Mode receiver (acks carry the answers); then our listeners → the store and
 * the place-order job → the supplier sandbox → the order's message in the fake Slack.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { STATUS_LINE_BLOCK_ID } from "../../src/slack/blocks/updates/status-line.ts";
import { getOrderByIdempotencyKey } from "../../src/store/repositories/orders.ts";
import {
  ADMIN,
  AGENT,
  type Harness,
  HELPDESK,
  NO_BOT,
  OUTSIDER,
  startHarness,
  TRANSPORTS,
  VALID_FORM,
} from "./support/harness.ts";

describe.each(TRANSPORTS)("over %s", (transport) => {
  let sandbox: SandboxHandle;
  let h: Harness;

  beforeAll(async () => {
    const key = generateTestKey();
    sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: `order-flow-${transport}` });
    h = await startHarness({ transport, supplierUrl: sandbox.url, apiKey: key });
  });

  afterAll(async () => {
    await h?.close();
    await sandbox?.close();
  });

  function statusLine(blocks: unknown): string {
    const block = (blocks as { block_id?: string; elements?: { text?: string }[] }[]).find(
      (b) => b.block_id === STATUS_LINE_BLOCK_ID,
    );
    return block?.elements?.[0]?.text ?? "";
  }

  async function openModal(user = h.agent, text = "ABC-123", channel = HELPDESK) {
    const { response, triggerId } = await user.runCommand({ channel, command: "/order", text });
    expect(response.status).toBe(200);
    return user.openedModal(triggerId);
  }

  describe("/order", () => {
    it("opens the modal, shows inline errors, then places the order and updates the channel message", async () => {
      const view = await openModal();
      expect(view.definition.callback_id).toBe("order_modal");

      // Invalid: bad e-mail and phone, an unrecognised country, no quantity.
      const invalid = await h.agent.submit(view.id, {
        ...VALID_FORM,
        profile: null,
        email: "nina-at-example",
        phone: "020 555",
        country: { value: "XX", text: "XX" },
        line_0_quantity: "",
      });
      expect(invalid.outcome).toEqual({ outcome: "errors", problems: [] });
      const errors = h.fake.view(view.id)?.errors ?? {};
      expect(Object.keys(errors).sort()).toEqual(["country", "email", "line_0_quantity", "phone", "profile"]);
      expect(errors.email).toMatch(/valid e-mail/);
      expect(errors.country).toMatch(/ISO 3166-1/);

      const valid = await h.agent.submit(view.id, { ...VALID_FORM, profile: "Acme EU" });
      expect(valid.outcome.outcome).toBe("closed");

      const stored = await getOrderByIdempotencyKey(h.store, `view:${view.id}`);
      expect(stored?.externalDocumentNumber).toBe("ABC-123-1");
      const placed = await h.waitForOrder((o) => o.id === stored?.id && o.status === "received", "placement");
      expect(placed.correlationId).toMatch(/^[0-9a-f-]{36}$/);

      const message = await h.fake.waitFor(
        () => {
          const m = h.fake.message(HELPDESK, placed.slackMessageTs ?? "");
          const latest = m?.versions.at(-1);
          return latest && JSON.stringify(latest.blocks).includes(placed.correlationId!) ? m : undefined;
        },
        { what: "the order message to show the placement" },
      );
      const first = message.versions[0]!;
      expect(first.text).toBe("Placing order ABC-123-1 for ABC-123 …");
      const latest = message.versions.at(-1)!;
      expect(statusLine(latest.blocks)).toMatch(/^✅ \*Received\* · since /);
      const shown = JSON.stringify(latest.blocks);
      expect(shown).toContain(placed.correlationId!);
      expect(shown).toContain("ABC-123-1");
      expect(shown).toContain("Nina Newhire");
      expect(shown).toContain("Laptop 14");
      expect(await sandbox.order(placed.correlationId!)).not.toBeNull();
    });

    it("places one order when the same submission arrives twice", async () => {
      const view = await openModal(h.agent, "DUP-7");
      h.agent.fill(view.id, { ...VALID_FORM, ticket: "DUP-7", profile: "Acme EU" });
      const payload = h.fake.viewPayload(view.id);
      const [a, b] = await Promise.all([
        h.requests.viewSubmission({ userId: AGENT, view: payload, triggerId: h.fake.issueTriggerId(AGENT) }),
        h.requests.viewSubmission({ userId: AGENT, view: payload, triggerId: h.fake.issueTriggerId(AGENT) }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const order = await h.waitForOrder(
        (o) => o.customerReference === "DUP-7" && o.status === "received",
        "DUP-7",
      );
      const { rows } = await h.store.query(
        "SELECT count(*)::int AS n FROM orders WHERE customer_reference = 'DUP-7'",
      );
      expect(rows[0]?.n).toBe(1);
      const atSupplier = (await sandbox.orders()).filter(
        (o) => o.externalDocumentNumber === order.externalDocumentNumber,
      );
      expect(atSupplier).toHaveLength(1);
    });

    it("tells someone who may not order why, instead of the form", async () => {
      const outsider = h.user(OUTSIDER);
      const view = await openModal(outsider, "ABC-9");
      const replaced = await h.fake.waitFor(
        () =>
          h.fake.view(view.id)?.definition.callback_id === "order_notice" ? h.fake.view(view.id) : undefined,
        { what: "the not-allowed notice" },
      );
      expect(JSON.stringify(replaced.definition.blocks)).toMatch(/not allowed to order/);
    });

    it("refuses a submission from someone not allowed even when the form was open", async () => {
      const view = await openModal(h.agent, "ABC-10");
      h.fake.fillView(view.id, { ...VALID_FORM, ticket: "ABC-10", profile: "Acme US" });
      const res = await h.requests.viewSubmission({
        userId: OUTSIDER,
        view: h.fake.viewPayload(view.id),
        triggerId: h.fake.issueTriggerId(OUTSIDER),
      });
      expect(res.body).toMatchObject({ response_action: "update", view: { callback_id: "order_notice" } });
      const { rows } = await h.store.query("SELECT 1 FROM orders WHERE customer_reference = 'ABC-10'");
      expect(rows).toHaveLength(0);
    });

    it("lets a member of an allowed user group order", async () => {
      const manager = h.user("U0MANAGER");
      const view = await openModal(manager, "GRP-1");
      const submitted = await manager.submit(view.id, { ...VALID_FORM, ticket: "GRP-1", profile: "Acme EU" });
      expect(submitted.outcome.outcome).toBe("closed");
    });

    it("sends the confirmation by DM, saying how to fix it, when the bot is not in the channel", async () => {
      const view = await openModal(h.agent, "NB-1", NO_BOT);
      const submitted = await h.agent.submit(view.id, { ...VALID_FORM, ticket: "NB-1" });
      expect(submitted.outcome.outcome).toBe("closed");
      const order = await h.waitForOrder(
        (o) => o.customerReference === "NB-1" && o.status === "received",
        "NB-1",
      );
      expect(order.slackChannelId).toMatch(/^D/);
      const dm = h.fake.dm(AGENT);
      const message = dm.find((m) => m.ts === order.slackMessageTs);
      expect(JSON.stringify(message?.versions[0]?.blocks)).toMatch(/invite @Order Desk/);
      expect(h.fake.topLevel(NO_BOT)).toHaveLength(0);
    });

    it("keeps typed values when lines and bundles are added and removed", async () => {
      const view = await openModal(h.agent, "KIT-1");
      h.agent.fill(view.id, { first_name: "Kim", line_0_item: { value: "PHONE-STD" } });
      await h.agent.clickInView(view.id, { actionId: "add_line" });
      await h.fake.waitFor(() => (h.fake.view(view.id)?.versions ?? 0) >= 2, { what: "the added line" });
      await h.agent.clickInView(view.id, { actionId: "add_bundle", value: "0" });
      // A select's click carries its selected option; the fake's click helper sends `value`, so send it directly.
      await h.requests.blockActions({
        userId: AGENT,
        triggerId: h.fake.issueTriggerId(AGENT),
        view: h.fake.viewPayload(view.id),
        actions: [
          {
            type: "static_select",
            action_id: "add_bundle",
            block_id: "line_actions",
            selected_option: { text: { type: "plain_text", text: "Remote starter kit" }, value: "0" },
          },
        ],
      });
      const withBundle = await h.fake.waitFor(
        () => {
          const v = h.fake.view(view.id);
          const ids = ((v?.definition.blocks ?? []) as { block_id?: string }[]).map((b) => b.block_id);
          return ids.filter((id) => id?.endsWith("_item")).length === 7 ? v : undefined;
        },
        { what: "the bundle's lines" },
      );
      expect(withBundle.values.first_name?.value).toMatchObject({ value: "Kim" });
      expect(withBundle.values.line_0_item?.line_item).toMatchObject({
        selected_option: { value: "PHONE-STD" },
      });
      const itemBlocks = (v: { definition: { blocks?: unknown } }) =>
        ((v.definition.blocks ?? []) as { block_id?: string }[])
          .map((b) => b.block_id ?? "")
          .filter((id) => /^line_\w+_item$/.test(id));
      // The blank line "Add line" made gave way to the bundle: lines 0 (typed), then the kit's six.
      const keys = itemBlocks(withBundle).map((id) => id.replace(/^line_(\w+)_item$/, "$1"));
      expect(keys).toHaveLength(7);
      const [kept, removed, ...rest] = keys as [string, string, ...string[]];
      const commented = rest[0]!;

      // Type into the remaining lines, then remove the kit's first line with "Remove line…".
      h.agent.fill(view.id, {
        line_0_quantity: "2",
        [`line_${commented}_comment`]: "Deliver with the laptop",
        email: "kim@example.com",
      });
      const versionsBefore = h.fake.view(view.id)?.versions ?? 0;
      const removeOption = (
        withBundle.definition.blocks as {
          block_id?: string;
          elements?: { action_id?: string; options?: { value: string; text: { text: string } }[] }[];
        }[]
      )
        .find((b) => b.block_id === "line_actions")
        ?.elements?.find((e) => e.action_id === "remove_line")
        ?.options?.find((o) => o.value === removed);
      expect(removeOption?.text.text).toMatch(/^Line 2: Laptop 14/);
      await h.requests.blockActions({
        userId: AGENT,
        triggerId: h.fake.issueTriggerId(AGENT),
        view: h.fake.viewPayload(view.id),
        actions: [
          {
            type: "static_select",
            action_id: "remove_line",
            block_id: "line_actions",
            selected_option: removeOption!,
          },
        ],
      });
      const afterRemove = await h.fake.waitFor(
        () => {
          const v = h.fake.view(view.id);
          return v && v.versions > versionsBefore ? v : undefined;
        },
        { what: "the form without the removed line" },
      );
      expect(itemBlocks(afterRemove)).toEqual(keys.filter((k) => k !== removed).map((k) => `line_${k}_item`));
      // Everything typed before the removal is still there, on the same lines.
      expect(afterRemove.values.first_name?.value).toMatchObject({ value: "Kim" });
      expect(afterRemove.values.email?.value).toMatchObject({ value: "kim@example.com" });
      expect(afterRemove.values[`line_${kept}_item`]?.line_item).toMatchObject({
        selected_option: { value: "PHONE-STD" },
      });
      expect(afterRemove.values[`line_${kept}_quantity`]?.line_quantity).toMatchObject({ value: "2" });
      expect(afterRemove.values[`line_${commented}_comment`]?.line_comment).toMatchObject({
        value: "Deliver with the laptop",
      });
      // The kit's other lines keep their items; the removed line's item is gone from the form.
      const shownItems = rest.map(
        (k) =>
          (
            afterRemove.definition.blocks as {
              block_id?: string;
              element?: { initial_option?: { value: string } };
            }[]
          ).find((b) => b.block_id === `line_${k}_item`)?.element?.initial_option?.value,
      );
      expect(shownItems).toEqual(["MON-27-4K", "DOCK-USBC", "KB-WL-US", "MOUSE-WL", "HS-ANC"]);
      expect(JSON.stringify(afterRemove.definition.blocks)).not.toContain("LAP-14-PRO");
      const validation = h.fake.calls("views.update").filter((c) => c.response?.ok === false);
      expect(validation).toEqual([]);
    });

    it("answers the item and country type-aheads from the catalog and the ISO list", async () => {
      const view = await openModal(h.agent, "TA-1");
      const items = await h.requests.blockSuggestion({
        userId: AGENT,
        view: h.fake.viewPayload(view.id),
        actionId: "line_item",
        blockId: "line_0_item",
        value: "wireless",
      });
      const groups = (items.body as { option_groups: { options: { value: string }[] }[] }).option_groups;
      expect(groups.flatMap((g) => g.options.map((o) => o.value)).sort()).toEqual(["KB-WL-US", "MOUSE-WL"]);
      const countries = await h.requests.blockSuggestion({
        userId: AGENT,
        view: h.fake.viewPayload(view.id),
        actionId: "country",
        blockId: "country",
        value: "germ",
      });
      expect((countries.body as { options: { value: string }[] }).options.map((o) => o.value)).toEqual([
        "DE",
      ]);
    });

    it("says the supplier is unavailable while retrying, then places the order when it is back", async () => {
      sandbox.setFaults({ outage: true });
      try {
        const view = await openModal(h.agent, "OUT-1");
        await h.agent.submit(view.id, { ...VALID_FORM, ticket: "OUT-1", profile: "Acme EU" });
        await h.fake.waitFor(
          () =>
            h.fake
              .topLevel(HELPDESK)
              .find((m) =>
                m.versions.some((v) => v.text.includes("OUT-1") && v.text.includes("retrying automatically")),
              ),
          { what: "the retrying notice", timeoutMs: 10_000 },
        );
      } finally {
        sandbox.setFaults({ outage: false });
      }
      const placed = await h.waitForOrder(
        (o) => o.customerReference === "OUT-1" && o.status === "received",
        "placement after the outage",
        15_000,
      );
      await h.fake.waitFor(() =>
        JSON.stringify(h.fake.message(HELPDESK, placed.slackMessageTs!)?.versions.at(-1)?.blocks).includes(
          placed.correlationId!,
        ),
      );
    });

    it("explains a number the supplier already has, and resubmits the order with a new one", async () => {
      const first = await openModal(h.agent, "PO-1");
      await h.agent.submit(first.id, {
        ...VALID_FORM,
        ticket: "PO-1",
        profile: "Acme EU",
        external_document_number: "PO-777",
      });
      await h.waitForOrder(
        (o) => o.customerReference === "PO-1" && o.status === "received",
        "the first order",
      );

      // Another profile, same supplier account: our per-profile check passes, the supplier refuses the number.
      const second = await openModal(h.agent, "PO-2");
      await h.agent.submit(second.id, {
        ...VALID_FORM,
        ticket: "PO-2",
        profile: "Acme US",
        external_document_number: "PO-777",
      });
      const rejected = await h.waitForOrder(
        (o) => o.customerReference === "PO-2" && o.status === "failed",
        "rejection",
      );
      expect(rejected.failure).toMatchObject({ kind: "rejected", code: "DUPLICATE_ORDER" });
      const message = await h.fake.waitFor(() => {
        const m = h.fake.message(HELPDESK, rejected.slackMessageTs ?? "");
        return m && JSON.stringify(m.versions.at(-1)?.blocks).includes("already has an order numbered PO-777")
          ? m
          : undefined;
      });

      const click = await h.agent.clickInMessage({
        channel: HELPDESK,
        ts: message.ts,
        actionId: "fix_and_resubmit",
      });
      const fix = await h.agent.openedModal(click.triggerId);
      const edn = (fix.definition.blocks as { block_id?: string; hint?: { text: string } }[]).find(
        (b) => b.block_id === "external_document_number",
      );
      expect(edn?.hint?.text).toMatch(/already has an order numbered PO-777/);
      await h.agent.submit(fix.id, { external_document_number: null });
      const placed = await h.waitForOrder(
        (o) => o.id === rejected.id && o.status === "received",
        "the resubmission",
      );
      expect(placed.externalDocumentNumber).toBe("PO-2-1");
    });

    it("orders from a ticket message with the shortcut, replying in the message's thread", async () => {
      const ticketMessage = h.fake.postAsUser(
        HELPDESK,
        "U0MANAGER",
        "New hire starts Monday, see <https://jira/ONB-555|ONB-555>.",
      );
      const { triggerId } = await h.agent.shortcutOnMessage({
        channel: HELPDESK,
        ts: ticketMessage.ts,
        callbackId: "order_from_message",
      });
      const view = await h.agent.openedModal(triggerId);
      const ticket = (
        view.definition.blocks as { block_id?: string; element?: { initial_value?: string } }[]
      ).find((b) => b.block_id === "ticket");
      expect(ticket?.element?.initial_value).toBe("ONB-555");
      await h.agent.submit(view.id, { ...VALID_FORM, ticket: "ONB-555", profile: "Acme EU" });
      const placed = await h.waitForOrder(
        (o) => o.customerReference === "ONB-555" && o.status === "received",
        "ONB-555",
      );
      expect(placed.source).toBe("shortcut");
      expect(placed.slackThreadTs).toBe(ticketMessage.ts);
      const replies = h.fake.thread(HELPDESK, ticketMessage.ts);
      expect(replies.map((m) => m.ts)).toEqual([placed.slackMessageTs]);
    });

    it("shows the order once when Slack took its message but the answer was lost, in the channel and in a thread", async () => {
      h.fake.loseAnswerNext("chat.postMessage");
      const view = await openModal(h.agent, "LOST-1");
      await h.agent.submit(view.id, { ...VALID_FORM, ticket: "LOST-1", profile: "Acme EU" });
      const placed = await h.waitForOrder(
        (o) => o.customerReference === "LOST-1" && o.status === "received" && o.slackMessageTs !== null,
        "LOST-1 placed and its message recorded",
      );
      const shown = h.fake.topLevel(HELPDESK).filter((m) => m.text.includes("LOST-1"));
      expect(shown.map((m) => m.ts)).toEqual([placed.slackMessageTs]);
      expect(h.fake.calls("conversations.history").length).toBeGreaterThan(0);

      const ticketMessage = h.fake.postAsUser(HELPDESK, "U0MANAGER", "Laptop for LOST-2 please");
      const { triggerId } = await h.agent.shortcutOnMessage({
        channel: HELPDESK,
        ts: ticketMessage.ts,
        callbackId: "order_from_message",
      });
      h.fake.loseAnswerNext("chat.postMessage");
      await h.agent.submit((await h.agent.openedModal(triggerId)).id, {
        ...VALID_FORM,
        ticket: "LOST-2",
        profile: "Acme EU",
      });
      const inThread = await h.waitForOrder(
        (o) => o.customerReference === "LOST-2" && o.status === "received" && o.slackMessageTs !== null,
        "LOST-2 placed and its message recorded",
      );
      expect(h.fake.thread(HELPDESK, ticketMessage.ts).map((m) => m.ts)).toEqual([inThread.slackMessageTs]);
    });

    it("waits out Slack's Retry-After for the order's message and shows it once", async () => {
      h.fake.rateLimit({ method: "chat.postMessage", count: 1, retryAfterSec: 1 });
      const view = await openModal(h.agent, "RATE-1");
      await h.agent.submit(view.id, { ...VALID_FORM, ticket: "RATE-1", profile: "Acme EU" });
      const placed = await h.waitForOrder(
        (o) => o.customerReference === "RATE-1" && o.status === "received" && o.slackMessageTs !== null,
        "RATE-1 placed and its message recorded",
      );
      expect(
        h.fake
          .topLevel(HELPDESK)
          .filter((m) => m.text.includes("RATE-1"))
          .map((m) => m.ts),
      ).toEqual([placed.slackMessageTs]);
      expect(h.fake.calls("chat.postMessage").some((c) => c.httpStatus === 429)).toBe(true);
    });

    it("shows the user's orders on App Home with their status", async () => {
      const event = {
        token: "t",
        team_id: h.fake.teamId,
        api_app_id: h.fake.appId,
        type: "event_callback",
        event_id: "Ev0HOME0001",
        event_time: Math.floor(Date.now() / 1000),
        event: {
          type: "app_home_opened",
          user: AGENT,
          channel: "D0AGENT01",
          tab: "home",
          event_ts: "1.000001",
        },
      };
      const res = await h.requests.send({ body: JSON.stringify(event), contentType: "application/json" });
      expect(res.status).toBe(200);
      const home = await h.fake.waitFor(() => h.fake.homeView(AGENT), { what: "App Home" });
      const shown = JSON.stringify(home.definition.blocks);
      expect(shown).toContain("My orders");
      expect(shown).toContain("ABC-123-1");
      expect(shown).toContain("home_place_order");
    });

    it("alerts nobody in the admin channel on the happy path", () => {
      expect(h.fake.topLevel(ADMIN)).toHaveLength(0);
    });
  });
});
