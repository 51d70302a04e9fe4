/**
 * The order modal's `private_metadata` comes back in every payload of the view, so it is sealed for the user the
 * modal was opened for (src/slack/metadata.ts). Over the real wire (signed Slack requests → Bolt → listeners →
 * the store): a submission, an "Add line" click or a type-ahead whose metadata was written or edited by anyone
 * else, or copied from another user's modal, changes nothing and shows nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { createMetadataSeal } from "../../src/slack/metadata.ts";
import type { FakeView } from "../../tools/fake-slack/index.ts";
import {
  AGENT,
  BOT_TOKEN,
  type Harness,
  HELPDESK,
  MANAGER,
  OUTSIDER,
  startHarness,
  VALID_FORM,
} from "./support/harness.ts";

let sandbox: SandboxHandle;
let h: Harness;

beforeAll(async () => {
  const key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "modal-metadata" });
  h = await startHarness({ supplierUrl: sandbox.url, apiKey: key });
});

afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

type Json = Record<string, unknown>;

/** The metadata's JSON part (after `<mac>.`), parsed: what an attacker can read and edit. */
function jsonOf(privateMetadata: unknown): Json {
  const text = String(privateMetadata);
  return JSON.parse(text.slice(text.indexOf(".") + 1)) as Json;
}

/** A MAC that was valid, kept in front of edited JSON. */
function withMacOf(privateMetadata: unknown, json: Json): string {
  const text = String(privateMetadata);
  return `${text.slice(0, text.indexOf("."))}.${JSON.stringify(json)}`;
}

async function openModal(ticket: string): Promise<FakeView> {
  const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
  const view = await h.agent.openedModal(triggerId);
  h.agent.fill(view.id, { ...VALID_FORM, ticket, profile: "Acme EU" });
  return view;
}

let forged = 0;
/** Submits Alice's filled-in modal as `userId` with `privateMetadata` in place of what Slack holds. */
async function submitWith(view: FakeView, privateMetadata: string, userId = AGENT) {
  const id = `VFORGED${++forged}`;
  const payload = { ...h.fake.viewPayload(view.id), id, root_view_id: id, private_metadata: privateMetadata };
  const res = await h.requests.viewSubmission({
    userId,
    view: payload,
    triggerId: h.fake.issueTriggerId(userId),
  });
  const { rows } = await h.store.query("SELECT count(*)::int AS n FROM orders WHERE idempotency_key = $1", [
    `view:${id}`,
  ]);
  return { res, stored: Number(rows[0]?.n) };
}

describe("the order modal's private_metadata", () => {
  it("is sealed: the JSON Slack carries starts with a MAC and names where the modal was opened", async () => {
    const view = await openModal("META-1");
    const text = String(view.definition.private_metadata);
    expect(text).toMatch(/^[A-Za-z0-9_-]{43}\.\{/);
    expect(jsonOf(text)).toMatchObject({ v: 1, src: "command", ch: HELPDESK });
    // The control: the modal as Slack holds it places the order.
    const { res, stored } = await submitWith(view, text);
    expect(res.text).toBe("");
    expect(stored).toBe(1);
  });

  it("refuses edited, unsealed, channel-less or borrowed metadata, storing nothing", async () => {
    const view = await openModal("META-2");
    const sealed = String(view.definition.private_metadata);
    const meta = jsonOf(sealed);
    const cases: [string, string, string?][] = [
      ["another channel of the profile", withMacOf(sealed, { ...meta, ch: "C0ONBOARD" })],
      ["any thread", withMacOf(sealed, { ...meta, src: "shortcut", th: "1700000000.000100" })],
      ["no channel (the channel rule skipped)", withMacOf(sealed, { ...meta, ch: undefined })],
      ["App Home's metadata", withMacOf(sealed, { ...meta, src: "home", ch: undefined })],
      ["unsealed JSON, as metadata used to be", JSON.stringify(meta)],
      ["a made-up MAC", `${"A".repeat(43)}.${JSON.stringify(meta)}`],
      ["empty", ""],
      // Mark may order with Acme EU (user group S0HELPDESK), but this modal was opened for Alice.
      ["Alice's metadata, submitted by Mark", sealed, MANAGER],
    ];
    for (const [what, privateMetadata, userId] of cases) {
      const { res, stored } = await submitWith(view, privateMetadata, userId);
      expect(res.status, what).toBe(200);
      expect(res.body, what).toMatchObject({
        response_action: "update",
        view: { blocks: [{ text: { text: expect.stringMatching(/open the order form again/) } }] },
      });
      expect(stored, what).toBe(0);
    }
  });

  it("refuses sealed metadata of a channel-scoped source that names no channel", async () => {
    // Only the server can seal; sealing here with the server's key stands for a bug that left the channel out.
    const seal = createMetadataSeal(BOT_TOKEN);
    const view = await openModal("META-3");
    const json = JSON.stringify({ ...jsonOf(view.definition.private_metadata), ch: undefined });
    const { res, stored } = await submitWith(view, seal.seal(json, AGENT));
    expect(res.body).toMatchObject({ response_action: "update" });
    expect(JSON.stringify(res.body)).toMatch(/no channel/);
    expect(stored).toBe(0);
  });

  it("does not rebuild a form whose metadata was edited (Add line would seal it anew)", async () => {
    const view = await openModal("META-4");
    const updates = () => h.fake.calls("views.update").filter((c) => c.args.view_id === view.id).length;
    const before = updates();
    const payload = h.fake.viewPayload(view.id);
    const edited = withMacOf(payload.private_metadata, {
      ...jsonOf(payload.private_metadata),
      ch: "C0ONBOARD",
    });
    const res = await h.requests.blockActions({
      userId: AGENT,
      triggerId: h.fake.issueTriggerId(AGENT),
      view: { ...payload, private_metadata: edited },
      actions: [{ type: "button", action_id: "add_line", block_id: "line_actions" }],
    });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(updates()).toBe(before);
    // The control: the same click on the form as Slack holds it adds a line.
    await h.agent.clickInView(view.id, { actionId: "add_line" });
    await h.fake.waitFor(() => (updates() > before ? true : undefined), { what: "the form rebuilt" });
  });
});

describe("the catalog type-ahead", () => {
  const suggest = async (userId: string, view: Json) => {
    const res = await h.requests.blockSuggestion({
      userId,
      view,
      actionId: "line_item",
      blockId: "line_0_item",
      value: "laptop",
    });
    const body = res.body as { options?: unknown[]; option_groups?: { options: { value: string }[] }[] };
    return (body.option_groups ?? [])
      .flatMap((g) => g.options.map((o) => o.value))
      .concat((body.options ?? []) as string[]);
  };

  it("answers the user a modal was opened for, and nobody else or for a view we did not open", async () => {
    const view = await openModal("META-5");
    const payload = h.fake.viewPayload(view.id);
    expect(await suggest(AGENT, payload)).toEqual(["LAP-14-PRO", "LAP-13-AIR"]);
    // Mark may order (user group), but not through Alice's modal; Oscar may not order at all.
    expect(await suggest(MANAGER, payload)).toEqual([]);
    expect(await suggest(OUTSIDER, payload)).toEqual([]);
    expect(
      await suggest(AGENT, {
        ...payload,
        private_metadata: JSON.stringify(jsonOf(payload.private_metadata)),
      }),
    ).toEqual([]);
    expect(await suggest(AGENT, { id: "VNOTOURS", type: "modal", blocks: [] })).toEqual([]);
  });

  it("answers only users who may order with a profile the modal offers", async () => {
    const seal = createMetadataSeal(BOT_TOKEN);
    const view = await openModal("META-6");
    const json = JSON.stringify(jsonOf(view.definition.private_metadata));
    const payload = h.fake.viewPayload(view.id);
    // A modal sealed for Oscar (he did run /order; the form was then replaced by "not allowed").
    expect(await suggest(OUTSIDER, { ...payload, private_metadata: seal.seal(json, OUTSIDER) })).toEqual([]);
    // Mark's own modal: allowed through the user group S0HELPDESK.
    expect(await suggest(MANAGER, { ...payload, private_metadata: seal.seal(json, MANAGER) })).toEqual([
      "LAP-14-PRO",
      "LAP-13-AIR",
    ]);
  });
});
