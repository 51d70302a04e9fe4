/**
 * When Slack does not open or update the order form (an expired trigger, Slack slow or failing), the user is told
 * what happened and what to do, at every entry point: signed requests to the app, faults injected by the fake
 * Slack Web API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { CALLBACK } from "../../src/slack/blocks/ids.ts";
import { AGENT, type Harness, HELPDESK, MANAGER, startHarness } from "./support/harness.ts";

let sandbox: SandboxHandle;
let h: Harness;

beforeAll(async () => {
  const key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "view-failures" });
  h = await startHarness({ supplierUrl: sandbox.url, apiKey: key });
});

afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

/** The ephemeral answer sent to the interaction's response_url that contains `words`. */
function answered(words: string) {
  return h.fake.waitFor(() => h.fake.responses().find((r) => JSON.stringify(r.body).includes(words)), {
    what: `an ephemeral answer saying "${words}"`,
  });
}

describe("the order form does not open", () => {
  it("/order: an expired trigger is answered with what happened and what to do", async () => {
    h.fake.failNext("views.open", "expired_trigger_id");
    const { response } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "ABC-1" });
    expect(response.status).toBe(200);
    const answer = await answered("Slack took too long");
    expect(answer.body).toMatchObject({
      response_type: "ephemeral",
      replace_original: false,
      text: "Slack took too long to open the order form; run /order again.",
    });
  });

  it("/order: Slack failing with HTTP 503 is answered too, after the client's own retries", async () => {
    h.fake.failNext("views.open", { httpStatus: 503 }, 3);
    await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "ABC-2" });
    const answer = await answered("HTTP 503");
    expect((answer.body as { text: string }).text).toBe(
      "Slack did not open the order form (it answered HTTP 503); wait a minute, then run /order again.",
    );
  });

  it("the message shortcut: an error Slack returns is named, with what to do", async () => {
    const ticket = h.fake.postAsUser(HELPDESK, MANAGER, "HD-77: a monitor for Tom, please");
    h.fake.failNext("views.open", "internal_error");
    const { response } = await h.agent.shortcutOnMessage({
      channel: HELPDESK,
      ts: ticket.ts,
      callbackId: CALLBACK.orderFromMessage,
    });
    expect(response.status).toBe(200);
    const answer = await answered("internal_error");
    const text = (answer.body as { text: string }).text;
    expect(text).toContain("Slack could not open the order form (Slack's error: internal_error)");
    expect(text).toContain("use Order equipment on the message again");
    expect(text).toContain("tell your Order Desk admin");
  });

  it("App Home's Place an order (no response_url): the user gets a DM from the app", async () => {
    const opened = {
      token: "t",
      team_id: h.fake.teamId,
      api_app_id: h.fake.appId,
      type: "event_callback",
      event_id: "Ev0HOMEFAIL1",
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
    const home = await h.fake.waitFor(() => h.fake.homeView(AGENT), { what: "the Home tab" });
    h.fake.failNext("views.open", "expired_trigger_id");
    await h.agent.clickInView(home.id, { actionId: "home_place_order" });
    const dm = await h.fake.waitFor(
      () => h.fake.dm(AGENT).find((m) => m.text.includes("Slack took too long")),
      { what: "a DM saying the form did not open" },
    );
    expect(dm.text).toBe(
      "Slack took too long to open the order form; click Place an order on the Home tab again.",
    );
  });
});

describe("the order form does not change", () => {
  it("Add line: the user is told in the channel (ephemeral), and that what they typed is kept", async () => {
    const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "ABC-3" });
    const view = await h.agent.openedModal(triggerId);
    h.fake.failNext("views.update", "internal_error");
    await h.agent.clickInView(view.id, { actionId: "add_line" });
    const ephemeral = await h.fake.waitFor(
      () => h.fake.ephemerals({ channel: HELPDESK, user: AGENT }).find((e) => e.text.includes("Add line")),
      { what: "an ephemeral message about the form" },
    );
    expect(ephemeral.text).toContain("Slack could not update the order form (Slack's error: internal_error)");
    expect(ephemeral.text).toContain("click Add line again. What you typed is still in the form.");
  });
});
