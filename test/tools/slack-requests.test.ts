import type { AddressInfo } from "node:net";
import { App, ExpressReceiver, HTTPReceiver, verifySlackRequest } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../../src/http/server.ts";
import { SlackRequestReceiver } from "../../src/slack/receiver.ts";
import { type FakeSlack, runWorkflowStep, SlackUser, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { createSlackRequests, type SlackRequests, signSlackRequest } from "../../tools/slack-requests.ts";
import { quietSlackLogger } from "../helpers/quiet-slack-logger.ts";

const BOT_TOKEN = "xoxb-test-bolt";
const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";

const text = (t: string) => ({ type: "plain_text" as const, text: t });

function orderModal(meta: Record<string, unknown>, ticket: string, lines = 1) {
  return {
    type: "modal" as const,
    callback_id: "order_modal",
    private_metadata: JSON.stringify(meta),
    title: text("Order equipment"),
    submit: text("Place order"),
    blocks: [
      { type: "section", block_id: "intro", text: { type: "mrkdwn", text: "Fill in the delivery contact." } },
      {
        type: "input",
        block_id: "ticket",
        label: text("Ticket"),
        element: { type: "plain_text_input", action_id: "value", initial_value: ticket },
      },
      {
        type: "input",
        block_id: "email",
        label: text("E-mail"),
        element: { type: "email_text_input", action_id: "value" },
      },
      {
        type: "input",
        block_id: "delivery",
        label: text("Deliver at"),
        element: {
          type: "static_select",
          action_id: "value",
          options: [
            { text: text("Office"), value: "Office" },
            { text: text("Home"), value: "Home" },
          ],
        },
      },
      ...Array.from({ length: lines }, (_, i) => ({
        type: "input",
        block_id: `line_${i}`,
        label: text(`Line ${i + 1}`),
        element: { type: "plain_text_input", action_id: "item" },
      })),
      {
        type: "actions",
        block_id: "line_actions",
        elements: [{ type: "button", action_id: "add_line", text: text("Add line") }],
      },
    ],
  };
}

let fake: FakeSlack;
let app: App;
let requests: SlackRequests;
let alice: SlackUser;
const retryNums: Array<number | undefined> = [];

type ReceiverKind = "Bolt's HTTPReceiver" | "our SlackRequestReceiver";
let stopApp: () => Promise<void> = async () => {};

beforeAll(async () => {
  fake = await startFakeSlack({
    botToken: BOT_TOKEN,
    channels: [{ id: "C0ORDERS", name: "it-orders" }],
  });
});

afterAll(async () => {
  await fake?.close();
});

/** The test app on `kind`: Bolt's own receiver and server, or ours mounted on the app's HTTP server. */
async function startApp(kind: ReceiverKind): Promise<void> {
  const ours =
    kind === "our SlackRequestReceiver"
      ? new SlackRequestReceiver({ signingSecret: SIGNING_SECRET, logger: quietSlackLogger })
      : null;
  app = new App({
    token: BOT_TOKEN,
    receiver: ours ?? new HTTPReceiver({ signingSecret: SIGNING_SECRET, logger: quietSlackLogger }),
    clientOptions: { slackApiUrl: fake.apiUrl },
    logger: quietSlackLogger,
    deferInitialization: true,
  });
  app.command("/order", async ({ ack, command, client }) => {
    await ack();
    await client.views.open({
      trigger_id: command.trigger_id,
      view: orderModal({ channel: command.channel_id }, command.text),
    });
  });
  app.shortcut("order_from_message", async ({ ack, shortcut, client }) => {
    await ack();
    if (shortcut.type !== "message_action") return;
    await client.views.open({
      trigger_id: shortcut.trigger_id,
      view: orderModal(
        { channel: shortcut.channel.id, thread_ts: shortcut.message.ts },
        shortcut.message.text ?? "",
      ),
    });
  });
  app.action("add_line", async ({ ack, body, client }) => {
    await ack();
    if (body.type !== "block_actions" || !body.view) return;
    const lines = body.view.blocks.filter(
      (b) => b.block_id?.startsWith("line_") && b.type === "input",
    ).length;
    const meta = JSON.parse(body.view.private_metadata) as Record<string, unknown>;
    await client.views.update({
      view_id: body.view.id,
      hash: body.view.hash,
      view: orderModal(meta, "", lines + 1),
    });
  });
  app.view("order_modal", async ({ ack, view, client }) => {
    const v = view.state.values;
    const email = v.email?.value?.value ?? "";
    const ticket = v.ticket?.value?.value ?? "";
    if (ticket === "KEY-TO-SECTION") {
      await ack({ response_action: "errors", errors: { intro: "not an input" } });
      return;
    }
    if (!email.includes("@")) {
      await ack({
        response_action: "errors",
        errors: { email: "Enter an e-mail address like nina@example.com" },
      });
      return;
    }
    await ack();
    const meta = JSON.parse(view.private_metadata) as { channel: string; thread_ts?: string };
    const deliverAt = v.delivery?.value?.selected_option?.value;
    await client.chat.postMessage({
      channel: meta.channel,
      ...(meta.thread_ts ? { thread_ts: meta.thread_ts } : {}),
      text: `placing order for ${ticket} (${deliverAt}, ${v.line_0?.item?.value})`,
    });
  });
  app.action("fix_and_resubmit", async ({ ack, body, client, respond }) => {
    await ack();
    if (body.type !== "block_actions") return;
    await client.views.open({
      trigger_id: body.trigger_id,
      view: orderModal({ channel: body.channel?.id }, "TICKET-FIX"),
    });
    await respond({ text: "Reopened your order form", response_type: "ephemeral", replace_original: false });
  });
  app.options("catalog_item", async ({ ack, options }) => {
    await ack({ options: [{ text: text(`Laptop matching ${options.value}`), value: "ITEM-1" }] });
  });
  app.use(async ({ context, next }) => {
    retryNums.push(context.retryNum);
    await next();
  });
  app.function("place_order", async ({ inputs, client, complete }) => {
    const posted = await client.chat.postMessage({
      channel: String(inputs.channel),
      text: `order for ${inputs.ticket_id}`,
    });
    await complete({
      outputs: {
        correlation_id: "9f1c6f43-5b6e-4a5e-8a57-0d2b0b8c1e11",
        external_document_number: `${inputs.ticket_id}-1`,
        order_message_link: `https://slack.example/${posted.ts}`,
      },
    });
  });
  await app.init();
  let url: string;
  if (ours) {
    const http = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      routes: [
        { path: "/slack/*", methods: ["POST"], handler: (req, res) => ours.requestListener(req, res) },
      ],
    });
    url = `${http.url}/slack/events`;
    stopApp = () => http.close({ graceMs: 1000 });
  } else {
    const server = (await app.start({ port: 0, host: "127.0.0.1" })) as {
      address(): AddressInfo | string | null;
    };
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
    stopApp = async () => {
      await app.stop();
    };
  }
  requests = createSlackRequests({
    url,
    signingSecret: SIGNING_SECRET,
    teamId: fake.teamId,
    appId: fake.appId,
  });
  alice = new SlackUser({ fake, requests, userId: "U0AGENT01" });
}

describe.each<ReceiverKind>(["Bolt's HTTPReceiver", "our SlackRequestReceiver"])(
  "signed Slack requests against %s",
  (kind) => {
    beforeAll(() => startApp(kind));
    afterAll(() => stopApp());

    it("signs with v0 HMAC-SHA256 of v0:timestamp:body, as Bolt verifies it", () => {
      const body = "command=%2Forder&text=TICKET-1";
      const headers = signSlackRequest({ signingSecret: SIGNING_SECRET, timestampSec: 1_700_000_000, body });
      expect(headers["x-slack-signature"]).toMatch(/^v0=[0-9a-f]{64}$/);
      expect(() =>
        verifySlackRequest({
          signingSecret: SIGNING_SECRET,
          body,
          headers: {
            "x-slack-signature": headers["x-slack-signature"],
            "x-slack-request-timestamp": 1_700_000_000,
          },
          nowMilliseconds: 1_700_000_010_000,
        }),
      ).not.toThrow();
    });

    it("a slash command reaches the handler, which opens the modal on the fake within the trigger's life", async () => {
      const { response, triggerId } = await alice.runCommand({
        channel: "C0ORDERS",
        command: "/order",
        text: "TICKET-123",
      });
      expect(response.status).toBe(200);
      const view = await alice.openedModal(triggerId);
      expect(view.userId).toBe("U0AGENT01");
      expect(JSON.parse(String(view.definition.private_metadata))).toEqual({ channel: "C0ORDERS" });
      expect(fake.viewPayload(view.id).state).toMatchObject({
        values: { ticket: { value: { type: "plain_text_input", value: "TICKET-123" } } },
      });
    });

    it("the receiver refuses a wrong signature and a stale timestamp with 401", async () => {
      const body = "command=%2Forder&text=TICKET-9&trigger_id=1.2.3";
      const bad = await requests.send({
        body,
        contentType: "application/x-www-form-urlencoded",
        signature: "v0=deadbeef",
      });
      expect(bad.status).toBe(401);
      const stale = await requests.send({
        body,
        contentType: "application/x-www-form-urlencoded",
        timestampSec: Math.floor(Date.now() / 1000) - 6 * 60,
      });
      expect(stale.status).toBe(401);
      expect(fake.calls("views.open").some((c) => c.args.trigger_id === "1.2.3")).toBe(false);
    });

    it("an invalid submission comes back as inline errors on the input, a valid one closes the modal and posts", async () => {
      const { triggerId } = await alice.runCommand({
        channel: "C0ORDERS",
        command: "/order",
        text: "TICKET-7",
      });
      const view = await alice.openedModal(triggerId);
      const invalid = await alice.submit(view.id, {
        email: "not-an-address",
        delivery: "Home",
        line_0: "ITEM-1",
      });
      expect(invalid.response.body).toEqual({
        response_action: "errors",
        errors: { email: "Enter an e-mail address like nina@example.com" },
      });
      expect(invalid.outcome).toEqual({ outcome: "errors", problems: [] });
      expect(fake.view(view.id)?.errors).toEqual({ email: "Enter an e-mail address like nina@example.com" });

      const valid = await alice.submit(view.id, { email: "nina@example.com" });
      expect(valid.outcome.outcome).toBe("closed");
      expect(fake.view(view.id)?.status).toBe("closed");
      const posted = await fake.waitFor(() =>
        fake.topLevel("C0ORDERS").find((m) => m.text.includes("TICKET-7")),
      );
      expect(posted.text).toBe("placing order for TICKET-7 (Home, ITEM-1)");
    });

    it("errors keyed to a block that is not an input are refused the way Slack refuses them", async () => {
      const { triggerId } = await alice.runCommand({
        channel: "C0ORDERS",
        command: "/order",
        text: "KEY-TO-SECTION",
      });
      const view = await alice.openedModal(triggerId);
      const { outcome } = await alice.submit(view.id, { email: "a@b.c", delivery: "Office" });
      expect(outcome).toEqual({
        outcome: "rejected",
        problems: ["errors key `intro` is not the block_id of an input block in this view"],
      });
      expect(fake.view(view.id)?.status).toBe("open");
    });

    it("a button in the modal updates the view by id and hash, keeping what was typed", async () => {
      const { triggerId } = await alice.runCommand({
        channel: "C0ORDERS",
        command: "/order",
        text: "TICKET-8",
      });
      const view = await alice.openedModal(triggerId);
      alice.fill(view.id, { line_0: "ITEM-1 x2" });
      const click = await alice.clickInView(view.id, { actionId: "add_line" });
      expect(click.response.status).toBe(200);
      await fake.waitFor(() => (fake.view(view.id)?.versions ?? 0) > 1, { what: "the modal to be updated" });
      const values = fake.viewPayload(view.id).state as {
        values: Record<string, Record<string, { value: unknown }>>;
      };
      expect(values.values.line_0?.item?.value).toBe("ITEM-1 x2");
      expect(values.values.line_1?.item?.value).toBeNull();
    });

    it("the message shortcut opens the modal with the ticket message as the thread to answer in", async () => {
      const ticket = fake.postAsUser("C0ORDERS", "U0MANAGER", "HR-42 new hire starts Monday");
      const { triggerId } = await alice.shortcutOnMessage({
        channel: "C0ORDERS",
        ts: ticket.ts,
        callbackId: "order_from_message",
      });
      const view = await alice.openedModal(triggerId);
      await alice.submit(view.id, { email: "nina@example.com", delivery: "Home", line_0: "KIT-1" });
      const reply = await fake.waitFor(() => fake.thread("C0ORDERS", ticket.ts)[0]);
      expect(reply.text).toContain("placing order for HR-42 new hire starts Monday");
    });

    it("function_executed runs the workflow step, which completes with the workflow token; re-delivery carries the retry number", async () => {
      const step = await runWorkflowStep(fake, requests, {
        callbackId: "place_order",
        inputs: { ticket_id: "ONB-5", channel: "C0ORDERS" },
      });
      expect(step.response.status).toBe(200);
      const done = await fake.waitFor(() => {
        const e = fake.execution(step.functionExecutionId);
        return e?.status === "completed" ? e : undefined;
      });
      expect(done.outputs).toMatchObject({ external_document_number: "ONB-5-1" });
      expect(fake.calls("functions.completeSuccess").at(-1)?.token).toBe("function");
      expect(fake.calls("chat.postMessage").at(-1)?.token).toBe("function");

      retryNums.length = 0;
      const again = await step.redeliver(1);
      expect(again.status).toBe(200);
      expect(retryNums).toEqual([1]);
    });

    it("a button on a message reaches the action handler, whose respond() lands on the fake's response_url", async () => {
      const posted = await app.client.chat.postMessage({
        channel: "C0ORDERS",
        text: "Order rejected",
        blocks: [
          { type: "section", text: { type: "mrkdwn", text: "Order *rejected*" } },
          {
            type: "actions",
            block_id: "order_actions",
            elements: [
              {
                type: "button",
                action_id: "fix_and_resubmit",
                text: text("Fix and resubmit"),
                value: "order-1",
              },
            ],
          },
        ],
      });
      const { response, triggerId } = await alice.clickInMessage({
        channel: "C0ORDERS",
        ts: posted.ts!,
        actionId: "fix_and_resubmit",
      });
      expect(response.status).toBe(200);
      await expect(alice.openedModal(triggerId)).resolves.toMatchObject({ userId: "U0AGENT01" });
      const reply = await fake.waitFor(() => fake.responses()[0]);
      expect(reply.body).toMatchObject({ text: "Reopened your order form", response_type: "ephemeral" });
    });

    it("a type-ahead select's block_suggestion gets the options the app answers", async () => {
      const view = fake.views({ userId: "U0AGENT01" })[0]!;
      const res = await requests.blockSuggestion({
        userId: "U0AGENT01",
        view: fake.viewPayload(view.id),
        actionId: "catalog_item",
        blockId: "line_0",
        value: "lap",
      });
      expect(res.body).toEqual({ options: [{ text: text("Laptop matching lap"), value: "ITEM-1" }] });
    });

    it("answers Slack's unsigned ssl_check with 200 and passes nothing it carries to the app", async () => {
      const smuggled = encodeURIComponent(JSON.stringify({ type: "block_actions", actions: [] }));
      const res = await requests.send({
        body: `ssl_check=1&token=x&payload=${smuggled}`,
        contentType: "application/x-www-form-urlencoded",
        signature: "v0=unsigned",
      });
      expect(res.status).toBe(200);
      expect(res.text).toBe("");
    });

    it("refuses a signed body that does not parse with 400", async () => {
      const res = await requests.send({
        body: "payload=%7Bnot-json",
        contentType: "application/x-www-form-urlencoded",
      });
      expect(res.status).toBe(400);
    });

    it("answers url_verification with the challenge", async () => {
      const res = await requests.urlVerification("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");
      expect(res.body).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    });
  },
);

describe("signed Slack requests against Bolt's ExpressReceiver", () => {
  it("accepts the same signature scheme", async () => {
    const receiver = new ExpressReceiver({ signingSecret: SIGNING_SECRET, logger: quietSlackLogger });
    const expressApp = new App({
      token: BOT_TOKEN,
      receiver,
      clientOptions: { slackApiUrl: fake.apiUrl },
      logger: quietSlackLogger,
      deferInitialization: true,
    });
    expressApp.command("/order", async ({ ack, command, client }) => {
      await ack();
      await client.views.open({
        trigger_id: command.trigger_id,
        view: orderModal({ channel: command.channel_id }, command.text),
      });
    });
    await expressApp.init();
    const server = (await expressApp.start(0)) as { address(): AddressInfo | string | null };
    try {
      const express = createSlackRequests({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
        signingSecret: SIGNING_SECRET,
        teamId: fake.teamId,
        appId: fake.appId,
      });
      const bob = new SlackUser({ fake, requests: express, userId: "U0MANAGER" });
      const { response, triggerId } = await bob.runCommand({
        channel: "C0ORDERS",
        command: "/order",
        text: "EXP-1",
      });
      expect(response.status).toBe(200);
      await expect(bob.openedModal(triggerId)).resolves.toMatchObject({ userId: "U0MANAGER" });
    } finally {
      await expressApp.stop();
    }
  });
});
