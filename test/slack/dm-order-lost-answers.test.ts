/**
 * An order's message that goes to the requester's DM shown once although Slack took it and its answer never came
 * back: the connection dropped after Slack stored it (`lost_answer`), or Slack answered after the client's timeout
 * (`late_answer`). The post was recorded as attempted first, so the retry opens the DM (`conversations.open`),
 * looks for the message by the order id in its metadata, and records it instead of posting again: an order placed
 * from App Home (its message always goes to the DM), and an order whose channel refused its message (sent to the
 * DM with a note). Without the DM scopes the retry cannot look: it says so once and posts again, the documented
 * cost. Over the real wire, once per transport (signed HTTP requests, Socket Mode envelopes), on the store of
 * DATABASE_URL or PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Order } from "../../src/orders/model/order.ts";
import { DEFAULT_BOT_SCOPES, type FakeMessage } from "../../tools/fake-slack/index.ts";
import { success } from "../supplier/support/stub-supplier.ts";
import {
  AGENT,
  type Harness,
  NO_BOT,
  type StubbedHarness,
  startOnStubSupplier,
  TRANSPORTS,
  type Transport,
  VALID_FORM,
} from "./support/harness.ts";
import { captureLog } from "./support/log.ts";
import { interruptNextPost, LOST_ANSWER_MODES } from "./support/lost-answers.ts";

/** A placement for each order of a harness (each with its own correlation id). */
const placements = () => Array.from({ length: 4 }, () => success());

/** App Home's Place an order, the form filled for `ticket` and submitted; resolves with the order's message recorded. */
async function orderFromHome(h: Harness, ticket: string): Promise<Order> {
  const opened = await h.requests.appHomeOpened({ userId: AGENT });
  expect(opened.status).toBe(200);
  const home = await h.fake.waitFor(() => h.fake.homeView(AGENT), { what: "the Home tab" });
  const { triggerId } = await h.agent.clickInView(home.id, { actionId: "home_place_order" });
  const view = await h.agent.openedModal(triggerId);
  const submitted = await h.agent.submit(view.id, { ...VALID_FORM, ticket, profile: "Acme EU" });
  expect(submitted.outcome.outcome, JSON.stringify(submitted.response.body)).toBe("closed");
  return recorded(h, ticket);
}

/** The order for `ticket` once placed and its message recorded. */
function recorded(h: Harness, ticket: string): Promise<Order> {
  return h.waitForOrder(
    (o) => o.customerReference === ticket && o.status === "received" && o.slackMessageTs !== null,
    `the order for ${ticket} placed and its message recorded`,
    20_000,
  );
}

/** The order messages in the agent's DM for `ticket` (top level). */
function inDm(h: Harness, ticket: string): FakeMessage[] {
  return h.fake.dm(AGENT).filter((m) => m.threadTs === undefined && m.text.includes(ticket));
}

describe.each(TRANSPORTS)("over %s", (transport: Transport) => {
  /** Ticket ids (ABC-123) of this transport and fault mode, apart from the other runs'. */
  const T = transport === "http" ? "H" : "S";
  describe.each(LOST_ANSWER_MODES)(
    "an order's message in the requester's DM whose answer Slack lost (%s)",
    (mode) => {
      let h: StubbedHarness;

      beforeAll(async () => {
        h = await startOnStubSupplier(placements(), { transport });
      });

      afterAll(async () => {
        await h?.close();
      });

      const interruptNextDm = () => interruptNextPost(h, mode, { channel: AGENT });

      it("an App Home order: posted once, the retry finds it in the DM and records it", async () => {
        interruptNextDm();
        const ticket = `HOME${T}${mode === "lost_answer" ? "L" : "T"}-1`;
        const order = await orderFromHome(h, ticket);
        const shown = inDm(h, ticket);
        expect(shown.map((m) => m.ts)).toEqual([order.slackMessageTs]);
        expect(order.slackChannelId).toBe(shown[0]?.channel);
        expect(order.slackThreadTs).toBe(order.slackMessageTs);
        // Posted to the person; the retry read the DM by the id conversations.open gave.
        const tries = h.fake.calls("chat.postMessage").filter((c) => c.args.channel === AGENT);
        expect(tries).toHaveLength(1);
        const open = h.fake.calls("conversations.open").filter((c) => c.args.users === AGENT);
        expect(open.length).toBeGreaterThan(0);
        const reads = h.fake
          .calls("conversations.history")
          .filter((c) => c.args.channel === order.slackChannelId);
        expect(reads.length).toBeGreaterThan(0);
      });

      it("an order its channel refused: the note in the DM is posted once, and its updates thread under it", async () => {
        interruptNextDm();
        const ticket = `NOBOT${T}${mode === "lost_answer" ? "L" : "T"}-1`;
        const { triggerId } = await h.agent.runCommand({ channel: NO_BOT, command: "/order", text: ticket });
        const view = await h.agent.openedModal(triggerId);
        const submitted = await h.agent.submit(view.id, { ...VALID_FORM, ticket });
        expect(submitted.outcome.outcome).toBe("closed");
        const order = await recorded(h, ticket);
        const shown = inDm(h, ticket);
        expect(shown.map((m) => m.ts)).toEqual([order.slackMessageTs]);
        expect(JSON.stringify(shown[0]?.versions[0]?.blocks)).toMatch(/invite @Order Desk/);
        expect(order.slackChannelId).toBe(shown[0]?.channel);
        expect(order.slackThreadTs).toBe(order.slackMessageTs);
        expect(h.fake.topLevel(NO_BOT)).toHaveLength(0);
      });
    },
  );

  describe("without the DM history scope", () => {
    let h: StubbedHarness;
    const log = captureLog("warn");

    beforeAll(async () => {
      h = await startOnStubSupplier(placements(), {
        transport,
        scopes: DEFAULT_BOT_SCOPES.filter((scope) => scope !== "im:history"),
        logger: log.logger,
      });
    });

    afterAll(async () => {
      await h?.close();
    });

    it("posts again after a lost answer rather than lose the message, and says so once", async () => {
      for (const ticket of [`BARE${T}-1`, `BARE${T}-2`]) {
        h.fake.loseAnswerNext("chat.postMessage", 1, { channel: AGENT });
        const order = await orderFromHome(h, ticket);
        // The documented cost of an app installed without the scope: the interrupted message shows twice.
        const shown = inDm(h, ticket);
        expect(shown).toHaveLength(2);
        expect(shown.map((m) => m.ts)).toContain(order.slackMessageTs);
      }
      const reads = h.fake.calls("conversations.history");
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.every((c) => (c.response as { error?: string }).error === "missing_scope")).toBe(true);
      const warnings = log.lines().filter((l) => String(l.msg).includes("requester's DM"));
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]?.msg)).toContain("im:history");
    });
  });
});
