/**
 * A typed order number (`externalDocumentNumber.allowManual`) is limited to letters, digits and - _ . /: a link in
 * Slack's markup is refused inline, and the modal says which characters are allowed. A hostile number already in
 * the store (typed before that rule, or written by hand) is escaped in every answer that shows it: the approvers'
 * "already approved…" answer and `/order status`. Over the real wire (signed requests, the fake Slack, a scripted
 * supplier).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIELD_BLOCK } from "../../src/slack/blocks/ids.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { approvalConfig, approvalDmFor, clickApproval, replayClick } from "./support/approvals.ts";
import {
  AGENT,
  BOSS,
  type Harness,
  HELPDESK,
  IT_LEADS,
  MANAGER,
  startHarness,
  VALID_FORM,
} from "./support/harness.ts";

const HOSTILE = "<https://phish.example/q|PO-1234>";

describe("a typed order number", () => {
  let supplier: StubSupplier;
  let h: Harness;

  beforeAll(async () => {
    supplier = await startStubSupplier([success(), success()]);
    h = await startHarness({
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config: approvalConfig([{ deliveryAt: "Home" }]),
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  async function openForm(ticket: string) {
    const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    return h.agent.openedModal(triggerId);
  }

  it("allows only letters, digits and - _ . /, says so in the form, and refuses a link inline", async () => {
    const view = await openForm("EDN-1");
    const block = (view.definition.blocks as { block_id?: string; hint?: { text: string } }[]).find(
      (b) => b.block_id === FIELD_BLOCK.externalDocumentNumber,
    );
    expect(block?.hint?.text).toContain("Only letters A–Z, digits and - _ . /, at most 35 characters");

    for (const typed of [HOSTILE, "*PO*-1", "PO 1234", "<!channel>", "PO-1&lt;"]) {
      const refused = await h.agent.submit(view.id, {
        ...VALID_FORM,
        ticket: "EDN-1",
        profile: "Acme EU",
        [FIELD_BLOCK.externalDocumentNumber]: typed,
      });
      expect(refused.outcome.outcome, typed).toBe("errors");
      const errors = (refused.response.body as { errors?: Record<string, string> }).errors ?? {};
      expect(errors[FIELD_BLOCK.externalDocumentNumber], typed).toContain(
        "Use only letters A–Z, digits and - _ . / (no spaces), at most 35 characters",
      );
    }
    const { rows } = await h.store.query(
      "SELECT count(*)::int AS n FROM orders WHERE customer_reference = 'EDN-1'",
    );
    expect(rows[0]?.n).toBe(0);

    const accepted = await h.agent.submit(view.id, {
      ...VALID_FORM,
      ticket: "EDN-1",
      profile: "Acme EU",
      [FIELD_BLOCK.externalDocumentNumber]: "PO-2026/11_a.1",
    });
    expect(accepted.outcome.outcome).toBe("closed");
    const order = await h.waitForOrder((o) => o.customerReference === "EDN-1", "EDN-1");
    expect(order.externalDocumentNumber).toBe("PO-2026/11_a.1");
  });

  it("escapes a hostile number already in the store in the approvers' answers and in /order status", async () => {
    const order = await h.waitForOrder((o) => o.customerReference === "EDN-1", "EDN-1");
    const managerDm = await h.fake.waitFor(() => approvalDmFor(h, MANAGER, "EDN-1"), {
      what: "MANAGER's DM",
    });
    const bossDm = await h.fake.waitFor(() => approvalDmFor(h, BOSS, "EDN-1"), { what: "BOSS's DM" });
    await h.store.query("UPDATE orders SET external_document_number = $2 WHERE id = $1", [order.id, HOSTILE]);

    await clickApproval(h, MANAGER, managerDm, "approve_order");
    await h.waitForOrder((o) => o.id === order.id && o.status === "received", "EDN-1 placed");
    const before = h.fake.responses().length;
    await replayClick(h, BOSS, bossDm, "approve_order");
    const already = await h.fake.waitFor(
      () =>
        h.fake
          .responses()
          .slice(before)
          .find((r) => JSON.stringify(r.body).includes("was already approved")),
      { what: "the answer that it was already approved" },
    );
    expect((already.body as { text: string }).text).toContain(
      "&lt;https://phish.example/q|PO-1234&gt; for EDN-1 was already approved",
    );

    const asked = h.fake.responses().length;
    await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "status EDN-1" });
    const status = await h.fake.waitFor(() => h.fake.responses()[asked], {
      what: "the /order status answer",
    });
    const body = status.body as { text: string; blocks: unknown[] };
    expect(body.text).toContain("&lt;https://phish.example/q");
    expect(JSON.stringify(body)).not.toContain("<https://phish.example");

    // Nothing Slack would make a link to the phishing host, or a mention, anywhere the app wrote.
    const workspace = new URL(h.fake.workspace.permalink(HELPDESK, order.slackMessageTs ?? "1")).hostname;
    const injections = h.fake.injections({
      allowUsers: [AGENT, MANAGER, BOSS],
      allowUsergroups: [IT_LEADS],
      allowLinkHosts: [workspace],
    });
    expect(injections).toEqual([]);
  });

  it("refuses fuzzed numbers with markup or links inline, and stores only safe ones", async () => {
    const safe = /^[A-Za-z0-9._/-]{1,35}$/;
    const typed = fc.oneof(
      fc.constantFrom(
        "<!channel>",
        "<@U0OUTSIDER>",
        "*PO*",
        "_PO_",
        "~PO~",
        "`PO`",
        "PO&amp;1",
        "PO-\u202e1",
      ),
      fc.string({ unit: fc.constantFrom(..."AZaz09-_./<>|*~`&!@#: "), minLength: 1, maxLength: 40 }),
    );
    const view = await openForm("EDN-2");
    await fc.assert(
      fc.asyncProperty(typed, async (number) => {
        fc.pre(!safe.test(number.trim()));
        const res = await h.agent.submit(view.id, {
          ...VALID_FORM,
          ticket: "EDN-2",
          profile: "Acme EU",
          [FIELD_BLOCK.externalDocumentNumber]: number,
        });
        expect(res.outcome.outcome, number).toBe("errors");
        const errors = (res.response.body as { errors?: Record<string, string> }).errors ?? {};
        expect(errors[FIELD_BLOCK.externalDocumentNumber], number).toContain("Use only letters A–Z");
      }),
      { numRuns: 100, seed: 35 },
    );
    const { rows } = await h.store.query<{ n: string }>(
      "SELECT external_document_number AS n FROM orders WHERE customer_reference = 'EDN-2'",
    );
    expect(rows).toEqual([]);
  });
});
