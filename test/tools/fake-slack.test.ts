// @slack/web-api and @slack/types come through Bolt, which re-exports them.
import { type types, webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BOT_SCOPES, type FakeSlack, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { quietSlackLogger } from "../helpers/quiet-slack-logger.ts";

const { WebClient, ErrorCode } = webApi;
type WebClient = webApi.WebClient;
type View = types.View;

const BOT_TOKEN = "xoxb-fake";
let now = 1_700_000_000_000;
const clock = () => now;
let fake: FakeSlack;
let client: WebClient;

function webClient(
  token: string | undefined,
  extra: ConstructorParameters<typeof WebClient>[1] = {},
): WebClient {
  return new WebClient(token, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logger: quietSlackLogger, // the WebClient logs every refused call; these tests refuse calls on purpose
    ...extra,
  });
}

async function slackError(p: Promise<unknown>): Promise<{ error: string; data: Record<string, unknown> }> {
  try {
    await p;
  } catch (err) {
    const e = err as webApi.WebAPIPlatformError;
    if (e.code !== ErrorCode.PlatformError) throw err;
    return { error: String(e.data.error), data: e.data as unknown as Record<string, unknown> };
  }
  throw new Error("expected the call to fail");
}

const section = (text: string, blockId?: string) => ({
  type: "section",
  ...(blockId ? { block_id: blockId } : {}),
  text: { type: "mrkdwn", text },
});

// Typed as View on purpose: several tests send what Slack refuses, which the SDK types would not allow.
const modal = (blocks: unknown[], title = "Order equipment"): View =>
  ({
    type: "modal",
    callback_id: "order_modal",
    title: { type: "plain_text", text: title },
    submit: { type: "plain_text", text: "Place order" },
    blocks,
  }) as View;

const input = (blockId: string, actionId: string, initial?: string) => ({
  type: "input",
  block_id: blockId,
  label: { type: "plain_text", text: blockId },
  element: { type: "plain_text_input", action_id: actionId, ...(initial ? { initial_value: initial } : {}) },
});

beforeAll(async () => {
  fake = await startFakeSlack({
    botToken: BOT_TOKEN,
    clock,
    channels: [
      { id: "C0ORDERS", name: "it-orders" },
      { id: "C0NOTJOIN", name: "general", botIsMember: false },
      { id: "G0SECRET", name: "secret", isPrivate: true, botIsMember: false },
      { id: "C0ARCHIVE", name: "old-orders", isArchived: true },
    ],
    usergroups: [{ id: "S0HELPDSK", handle: "helpdesk", users: ["U0AGENT01"] }],
    // Order Desk does not ask for users:read; the fake still serves users.info to a token that has it.
    scopes: [...DEFAULT_BOT_SCOPES, "users:read"],
  });
  client = webClient(BOT_TOKEN);
});

afterAll(async () => {
  await fake.close();
});

describe("fake Slack answers the real @slack/web-api WebClient", () => {
  it("authenticates the bot token and rejects a wrong or missing one", async () => {
    const auth = await client.auth.test();
    expect(auth).toMatchObject({
      ok: true,
      team_id: "T0ORDERDSK",
      user_id: "U0ORDERBOT",
      bot_id: "B0ORDERBOT",
    });
    expect((await slackError(webClient("xoxb-wrong").auth.test())).error).toBe("invalid_auth");
    expect((await slackError(webClient(undefined).auth.test())).error).toBe("not_authed");
    expect(fake.calls("auth.test").map((c) => c.token)).toEqual(["bot", "invalid", "none"]);
  });

  it("answers unknown_method for a method it does not implement", async () => {
    expect((await slackError(client.apiCall("reactions.add", { name: "tada" }))).error).toBe(
      "unknown_method",
    );
  });

  it("posts a message, threads replies under it, gives permalinks and records every edit", async () => {
    const parent = await client.chat.postMessage({
      channel: "C0ORDERS",
      text: "placing order for TICKET-1",
      blocks: [
        section("*Placing order* for TICKET-1"),
        { type: "context", block_id: "status", elements: [{ type: "mrkdwn", text: "queued" }] },
      ],
    });
    expect(parent.ts).toMatch(/^\d{10}\.\d{6}$/);
    now += 1000;
    const reply = (await client.chat.postMessage({
      channel: "C0ORDERS",
      thread_ts: parent.ts!,
      text: "Shipped",
    })) as webApi.ChatPostMessageResponse;
    expect(Number(reply.ts)).toBeGreaterThan(Number(parent.ts));
    await client.chat.update({
      channel: "C0ORDERS",
      ts: parent.ts!,
      text: "order placed for TICKET-1",
      blocks: [
        section("*Placed* TICKET-1"),
        { type: "context", block_id: "status", elements: [{ type: "mrkdwn", text: "shipped" }] },
      ],
    });
    expect(fake.thread("C0ORDERS", parent.ts!).map((m) => m.text)).toEqual(["Shipped"]);
    expect(fake.message("C0ORDERS", parent.ts!)?.versions.map((v) => v.text)).toEqual([
      "placing order for TICKET-1",
      "order placed for TICKET-1",
    ]);
    const link = await client.chat.getPermalink({ channel: "C0ORDERS", message_ts: reply.ts! });
    expect(link.permalink).toBe(
      `https://order-desk-demo.slack.com/archives/C0ORDERS/p${reply.ts!.replace(".", "")}?thread_ts=${parent.ts}&cid=C0ORDERS`,
    );
    const transcript = fake.transcript("C0ORDERS");
    expect(transcript).toContain("Order Desk: *Placed* TICKET-1 (edited 1×)");
    expect(transcript).toContain("↳");
    expect(transcript).toContain("status: shipped");

    // A date (`<!date^…>`) reads as its fallback text.
    await client.chat.postMessage({
      channel: "C0ORDERS",
      text: "Approved on <!date^1700000000^{date_short_pretty} at {time}|2023-11-14T22:13:20.000Z>",
    });
    expect(fake.transcript("C0ORDERS")).toContain("Approved on 2023-11-14T22:13:20.000Z");
  });

  it("reads a thread and a channel's history with their metadata only when asked, page by page", async () => {
    now += 60_000;
    const since = (now / 1000).toFixed(6);
    now += 1000; // oldest is exclusive, as on Slack
    const metadata = { event_type: "order_desk_order", event_payload: { order_id: "o-1" } };
    const parent = await client.chat.postMessage({ channel: "C0ORDERS", text: "order o-1", metadata });
    for (const n of [1, 2, 3]) {
      now += 1000;
      await client.chat.postMessage({
        channel: "C0ORDERS",
        thread_ts: parent.ts!,
        text: `update ${n}`,
        metadata: { event_type: "order_desk_supplier_event", event_payload: { event_id: `evt_${n}` } },
      });
    }
    const first = await client.conversations.replies({
      channel: "C0ORDERS",
      ts: parent.ts!,
      limit: 2,
      include_all_metadata: true,
    });
    expect(first.messages?.map((m) => m.text)).toEqual(["order o-1", "update 1"]);
    expect(first.has_more).toBe(true);
    const rest = await client.conversations.replies({
      channel: "C0ORDERS",
      ts: parent.ts!,
      cursor: String(first.response_metadata?.next_cursor),
      include_all_metadata: true,
    });
    expect(rest.messages?.map((m) => m.metadata?.event_payload)).toEqual([
      { event_id: "evt_2" },
      { event_id: "evt_3" },
    ]);
    const bare = await client.conversations.replies({ channel: "C0ORDERS", ts: parent.ts! });
    expect(bare.messages?.some((m) => m.metadata)).toBe(false);

    const history = await client.conversations.history({
      channel: "C0ORDERS",
      oldest: since,
      include_all_metadata: true,
    });
    expect(history.messages?.map((m) => [m.text, m.metadata])).toEqual([["order o-1", metadata]]);
    expect(
      (await slackError(client.conversations.replies({ channel: "C0ORDERS", ts: "1.000001" }))).error,
    ).toBe("thread_not_found");
    expect((await slackError(client.conversations.history({ channel: "C0NOTJOIN" }))).error).toBe(
      "not_in_channel",
    );
  });

  it("refuses a thread_ts that is not a message in the channel", async () => {
    const { error } = await slackError(
      client.chat.postMessage({ channel: "C0ORDERS", thread_ts: "1.000001", text: "x" }),
    );
    expect(error).toBe("invalid_thread_ts");
  });

  it("answers not_in_channel, channel_not_found and is_archived like Slack does for a bot token", async () => {
    expect((await slackError(client.chat.postMessage({ channel: "C0NOTJOIN", text: "hi" }))).error).toBe(
      "not_in_channel",
    );
    expect((await slackError(client.chat.postMessage({ channel: "G0SECRET", text: "hi" }))).error).toBe(
      "channel_not_found",
    );
    expect((await slackError(client.chat.postMessage({ channel: "C0NOPE", text: "hi" }))).error).toBe(
      "channel_not_found",
    );
    expect((await slackError(client.chat.postMessage({ channel: "C0ARCHIVE", text: "hi" }))).error).toBe(
      "is_archived",
    );
    fake.setMember("C0NOTJOIN", true);
    await expect(client.chat.postMessage({ channel: "C0NOTJOIN", text: "hi" })).resolves.toMatchObject({
      ok: true,
    });
    fake.setMember("C0NOTJOIN", false);
  });

  it("delivers a message posted to a user id into the app's DM with that user", async () => {
    const res = await client.chat.postMessage({ channel: "U0AGENT01", text: "I could not post in #general" });
    expect(res.channel).toBe("D0AGENT01");
    expect(fake.dm("U0AGENT01").map((m) => m.text)).toEqual(["I could not post in #general"]);
  });

  it("rejects messages over 50 blocks, over 40,000 characters, long section text and duplicate block_ids", async () => {
    const many = Array.from({ length: 51 }, (_, i) => section(`line ${i}`));
    const tooMany = await slackError(
      client.chat.postMessage({ channel: "C0ORDERS", text: "x", blocks: many }),
    );
    expect(tooMany.error).toBe("invalid_blocks");
    expect(tooMany.data.errors).toEqual(["no more than 50 items allowed [json-pointer:/blocks]"]);

    expect(
      (await slackError(client.chat.postMessage({ channel: "C0ORDERS", text: "x".repeat(40_001) }))).error,
    ).toBe("msg_too_long");
    const long = await slackError(
      client.chat.postMessage({ channel: "C0ORDERS", text: "x", blocks: [section("y".repeat(3001))] }),
    );
    expect(long.data.errors).toEqual([
      "must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
    ]);
    const dup = await slackError(
      client.chat.postMessage({
        channel: "C0ORDERS",
        text: "x",
        blocks: [section("a", "same"), section("b", "same")],
      }),
    );
    expect(dup.data.errors).toEqual(["duplicate block_id `same` [json-pointer:/blocks/1/block_id]"]);
    expect((await slackError(client.chat.postMessage({ channel: "C0ORDERS" } as never))).error).toBe(
      "no_text",
    );
  });

  it("opens a modal once per trigger_id and only within 3 seconds of the interaction", async () => {
    const trigger = fake.issueTriggerId("U0AGENT01");
    const opened = await client.views.open({
      trigger_id: trigger,
      view: modal([input("ticket", "value", "TICKET-1")]),
    });
    expect(opened.view?.id).toMatch(/^V[A-Z0-9]{10}$/);
    expect(fake.views({ openedWithTrigger: trigger })[0]?.userId).toBe("U0AGENT01");

    const again = await slackError(client.views.open({ trigger_id: trigger, view: modal([]) }));
    expect(again.error).toBe("exchanged_trigger_id");

    const late = fake.issueTriggerId("U0AGENT01");
    now += 3001;
    expect((await slackError(client.views.open({ trigger_id: late, view: modal([]) }))).error).toBe(
      "expired_trigger_id",
    );
    expect((await slackError(client.views.open({ trigger_id: "1.2.3", view: modal([]) }))).error).toBe(
      "invalid_trigger_id",
    );
  });

  it("rejects views over 100 blocks, long titles, duplicate action_ids in a block and a missing submit", async () => {
    const blocks = Array.from({ length: 101 }, (_, i) => section(`s${i}`));
    const big = await slackError(
      client.views.open({ trigger_id: fake.issueTriggerId(), view: modal(blocks) }),
    );
    expect(big.error).toBe("invalid_arguments");
    expect(big.data.response_metadata).toMatchObject({
      messages: ["[ERROR] no more than 100 items allowed [json-pointer:/view/blocks]"],
    });
    const title = await slackError(
      client.views.open({
        trigger_id: fake.issueTriggerId(),
        view: modal([], "A title longer than 24 chars"),
      }),
    );
    expect(title.data.response_metadata).toMatchObject({
      messages: ["[ERROR] must be less than 25 characters [json-pointer:/view/title/text]"],
    });
    const twoButtons = {
      type: "actions",
      block_id: "lines",
      elements: [
        { type: "button", action_id: "add", text: { type: "plain_text", text: "Add line" } },
        { type: "button", action_id: "add", text: { type: "plain_text", text: "Add bundle" } },
      ],
    };
    const dup = await slackError(
      client.views.open({ trigger_id: fake.issueTriggerId(), view: modal([twoButtons]) }),
    );
    expect(dup.data.response_metadata).toMatchObject({
      messages: [
        "[ERROR] action_id `add` is already used in this block [json-pointer:/view/blocks/0/elements/1/action_id]",
      ],
    });
    const { submit: _submit, ...noSubmit } = modal([input("ticket", "value")]) as View & { submit?: unknown };
    const missing = await slackError(
      client.views.open({ trigger_id: fake.issueTriggerId(), view: noSubmit }),
    );
    expect(missing.data.response_metadata).toMatchObject({
      messages: ["[ERROR] submit is required when an input block is present [json-pointer:/view/submit]"],
    });
  });

  it("updates a view by id keeping typed values of unchanged inputs, and checks the hash when given", async () => {
    const opened = await client.views.open({
      trigger_id: fake.issueTriggerId("U0AGENT01"),
      view: modal([input("first_name", "value"), input("line_0", "qty")]),
    });
    const id = opened.view!.id!;
    fake.fillView(id, { first_name: "Nina", line_0: "2" });
    const updated = await client.views.update({
      view_id: id,
      hash: opened.view!.hash!,
      view: modal([input("first_name", "value"), input("line_0", "qty"), input("line_1", "qty")]),
    });
    expect(fake.viewPayload(id).state).toEqual({
      values: {
        first_name: { value: { type: "plain_text_input", value: "Nina" } },
        line_0: { qty: { type: "plain_text_input", value: "2" } },
        line_1: { qty: { type: "plain_text_input", value: null } },
      },
    });
    const stale = await slackError(
      client.views.update({ view_id: id, hash: opened.view!.hash!, view: modal([]) }),
    );
    expect(stale.error).toBe("hash_conflict");
    expect(updated.view?.hash).not.toBe(opened.view!.hash);
  });

  it("publishes a Home tab per user", async () => {
    await client.views.publish({
      user_id: "U0AGENT01",
      view: { type: "home", blocks: [section("My orders")] },
    });
    await client.views.publish({
      user_id: "U0AGENT01",
      view: { type: "home", blocks: [section("My orders (2)")] },
    });
    expect(fake.homeView("U0AGENT01")?.versions).toBe(2);
  });

  it("answers directory lookups and refuses methods outside the granted scopes", async () => {
    const user = await client.users.info({ user: "U0NEWHIRE" });
    expect(user.user?.profile).toMatchObject({ first_name: "Nina", last_name: "Newhire" });
    expect(user.user?.profile?.email).toBeUndefined(); // users:read.email is not granted
    expect((await client.usergroups.users.list({ usergroup: "S0HELPDSK" })).users).toEqual(["U0AGENT01"]);
    expect((await client.conversations.info({ channel: "C0NOTJOIN" })).channel).toMatchObject({
      is_member: false,
    });
    const join = await slackError(client.conversations.join({ channel: "C0NOTJOIN" }));
    expect(join).toMatchObject({ error: "missing_scope", data: { needed: "channels:join" } });
  });

  it("completes a workflow step once, with the outputs the manifest requires", async () => {
    const execution = fake.startFunctionExecution("place_order", { ticket_id: "TICKET-9" });
    const workflowClient = webClient(execution.botAccessToken);
    const partial = await slackError(
      workflowClient.functions.completeSuccess({
        function_execution_id: execution.functionExecutionId,
        outputs: { correlation_id: "c-1" },
      }),
    );
    expect(partial.error).toBe("parameter_validation_failed");
    await workflowClient.functions.completeSuccess({
      function_execution_id: execution.functionExecutionId,
      outputs: {
        correlation_id: "c-1",
        external_document_number: "TICKET-9-1",
        order_message_link: "https://x",
      },
    });
    expect(fake.execution(execution.functionExecutionId)).toMatchObject({ status: "completed" });
    const twice = await slackError(
      workflowClient.functions.completeError({
        function_execution_id: execution.functionExecutionId,
        error: "late",
      }),
    );
    expect(twice.error).toBe("execution_not_in_running_state");
    expect(fake.calls("functions.completeSuccess").every((c) => c.token === "function")).toBe(true);
  });
});

describe("fake Slack fault injection", () => {
  it("answers a rate-limit burst with HTTP 429 and Retry-After, then recovers", async () => {
    fake.rateLimit({ method: "chat.postMessage", count: 2, retryAfterSec: 7 });
    const raw = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: "POST",
      headers: { authorization: `Bearer ${BOT_TOKEN}`, "content-type": "application/x-www-form-urlencoded" },
      body: "channel=C0ORDERS&text=hi",
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get("retry-after")).toBe("7");
    const rejecting = webClient(BOT_TOKEN, { rejectRateLimitedCalls: true });
    await expect(rejecting.chat.postMessage({ channel: "C0ORDERS", text: "hi" })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 7,
    });
    await expect(
      client.chat.postMessage({ channel: "C0ORDERS", text: "after the burst" }),
    ).resolves.toMatchObject({ ok: true });
  });

  it("lets the WebClient retry through a burst after Retry-After seconds", async () => {
    fake.rateLimit({ count: 1, retryAfterSec: 0 });
    const retrying = webClient(BOT_TOKEN, { retryConfig: { retries: 2, minTimeout: 0, maxTimeout: 0 } });
    await expect(retrying.chat.postMessage({ channel: "C0ORDERS", text: "retried" })).resolves.toMatchObject({
      ok: true,
    });
    expect(
      fake
        .calls("chat.postMessage")
        .slice(-2)
        .map((c) => c.httpStatus),
    ).toEqual([429, 200]);
  });

  it("fails the next call with a Slack error or an HTTP status", async () => {
    fake.failNext("chat.update", "cant_update_message");
    const { error } = await slackError(client.chat.update({ channel: "C0ORDERS", ts: "1.1", text: "x" }));
    expect(error).toBe("cant_update_message");
    fake.failNext("chat.postMessage", { httpStatus: 503 });
    await expect(client.chat.postMessage({ channel: "C0ORDERS", text: "x" })).rejects.toMatchObject({
      code: ErrorCode.HTTPError,
      statusCode: 503,
    });
  });

  it("fails only the calls to one channel when asked (a DM to one user), the others go through", async () => {
    fake.failNext("chat.postMessage", "cannot_dm_user", 1, { channel: "U0AGENT01" });
    await expect(
      client.chat.postMessage({ channel: "C0ORDERS", text: "to the channel" }),
    ).resolves.toMatchObject({ ok: true });
    const { error } = await slackError(client.chat.postMessage({ channel: "U0AGENT01", text: "first DM" }));
    expect(error).toBe("cannot_dm_user");
    await expect(client.chat.postMessage({ channel: "U0AGENT01", text: "second DM" })).resolves.toMatchObject(
      {
        ok: true,
      },
    );
    expect(fake.dm("U0AGENT01").map((m) => m.text)).toContain("second DM");
    expect(fake.dm("U0AGENT01").map((m) => m.text)).not.toContain("first DM");
  });

  it("can take a post and lose its answer, as when the connection drops after Slack stored it", async () => {
    now += 60_000;
    fake.loseAnswerNext("chat.postMessage");
    await expect(client.chat.postMessage({ channel: "C0ORDERS", text: "lost answer" })).rejects.toMatchObject(
      {
        code: ErrorCode.RequestError,
      },
    );
    expect(fake.messages("C0ORDERS").filter((m) => m.text === "lost answer")).toHaveLength(1);
  });

  it("can take a post at once and answer it after the caller's timeout, as a slow Slack does", async () => {
    now += 60_000;
    fake.answerLateNext("chat.postMessage", 2_000);
    const impatient = webClient(BOT_TOKEN, { timeout: 150 });
    await expect(
      impatient.chat.postMessage({ channel: "C0ORDERS", text: "late answer" }),
    ).rejects.toMatchObject({ code: ErrorCode.RequestError });
    expect(fake.messages("C0ORDERS").filter((m) => m.text === "late answer")).toHaveLength(1);
    // The next call is answered as usual.
    await expect(client.chat.postMessage({ channel: "C0ORDERS", text: "on time" })).resolves.toMatchObject({
      ok: true,
    });
  });

  it("holds a call before Slack takes it until the test releases it, then handles it as usual", async () => {
    now += 60_000;
    const held = fake.holdNext("chat.postMessage", { channel: "C0ORDERS", text: "held" });
    const posting = client.chat.postMessage({ channel: "C0ORDERS", text: "held post" });
    await held.arrived;
    // Another call goes through meanwhile; the held one is not in Slack yet.
    await expect(client.chat.postMessage({ channel: "C0ORDERS", text: "beside it" })).resolves.toMatchObject({
      ok: true,
    });
    expect(fake.messages("C0ORDERS").filter((m) => m.text === "held post")).toHaveLength(0);
    held.release();
    await expect(posting).resolves.toMatchObject({ ok: true });
    expect(fake.messages("C0ORDERS").filter((m) => m.text === "held post")).toHaveLength(1);
  });

  it("hangs a call until the client times out, without keeping close() waiting", async () => {
    fake.hangNext("users.info");
    const impatient = webClient(BOT_TOKEN, { timeout: 150 });
    await expect(impatient.users.info({ user: "U0AGENT01" })).rejects.toMatchObject({
      code: ErrorCode.RequestError,
    });
  });

  it("paces posts per channel when asked to, like Slack's one message per second", async () => {
    let t = 1_700_000_100_000;
    const paced = await startFakeSlack({
      botToken: BOT_TOKEN,
      clock: () => t,
      channels: [{ id: "C0PACED" }],
      channelPace: { perSecond: 1, burst: 1 },
    });
    try {
      const c = new WebClient(BOT_TOKEN, {
        slackApiUrl: paced.apiUrl,
        rejectRateLimitedCalls: true,
        logger: quietSlackLogger, // the WebClient logs every refused call; these tests refuse calls on purpose
      });
      await c.chat.postMessage({ channel: "C0PACED", text: "1" });
      await expect(c.chat.postMessage({ channel: "C0PACED", text: "2" })).rejects.toMatchObject({
        retryAfter: 1,
      });
      t += 1000;
      await expect(c.chat.postMessage({ channel: "C0PACED", text: "2" })).resolves.toMatchObject({
        ok: true,
      });
    } finally {
      await paced.close();
    }
  });

  it("waitFor resolves when a call makes the condition true and explains a timeout", async () => {
    const waiting = fake.waitFor(() => fake.topLevel("C0ORDERS").find((m) => m.text === "awaited"), {
      what: "the awaited message",
    });
    await client.chat.postMessage({ channel: "C0ORDERS", text: "awaited" });
    await expect(waiting).resolves.toMatchObject({ text: "awaited" });
    await expect(fake.waitFor(() => false, { timeoutMs: 60, what: "nothing" })).rejects.toThrow(
      /Timed out after 60 ms waiting for nothing/,
    );
  });
});
