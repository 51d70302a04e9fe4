/**
 * The outbound adapters behind the domain's ports, over the real wire (the fake Slack Web API): Slack's answers
 * come out as the ports' outcomes only — retry after N ms, refused for good (the destination, or this message),
 * failed and may retry — never as the SDK's errors.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ChatCallFailedError,
  ChatDestinationGoneError,
  ChatMessageRefusedError,
  ChatRateLimitedError,
} from "../../../src/orders/updates/errors.ts";
import { FunctionCompletionError } from "../../../src/orders/workflow/errors.ts";
import { createSlackChat, createSlackWorkflowFunctions } from "../../../src/slack/outbound/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../tools/fake-slack/index.ts";
import { fakeSlackToken } from "../../../tools/fake-tokens.ts";

const BOT_TOKEN = fakeSlackToken("xoxb");
const CHANNEL = "C0ORDERS";
let fake: FakeSlack;

beforeAll(async () => {
  fake = await startFakeSlack({ botToken: BOT_TOKEN, channels: [{ id: CHANNEL, name: "it-orders" }] });
});
afterEach(() => fake.clearFaults());
afterAll(async () => {
  await fake.close();
});

async function thrown(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

describe("the post-update job's chat (createSlackChat)", () => {
  const chat = () => createSlackChat({ token: BOT_TOKEN, apiUrl: fake.apiUrl, timeoutMs: 5_000 });
  const reply = { channel: CHANNEL, text: "Shipped" };

  it("posts, updates and finds a reply by its event id", async () => {
    const { ts: parent } = await chat().postMessage(reply);
    const metadata = { event_type: "order_desk_supplier_event", event_payload: { event_id: "evt_1" } };
    const { ts } = await chat().postMessage({ ...reply, thread_ts: parent, metadata });
    await chat().update({ channel: CHANNEL, ts: parent, text: "Order shipped" });
    expect(fake.message(CHANNEL, parent)?.versions.at(-1)).toMatchObject({ text: "Order shipped" });
    const find = { channel: CHANNEL, threadTs: parent, eventType: metadata.event_type };
    expect(await chat().findReply({ ...find, eventId: "evt_1" })).toBe(ts);
    expect(await chat().findReply({ ...find, eventId: "evt_2" })).toBeNull();
  });

  it("a 429 → retry after Retry-After (ChatRateLimitedError), Slack called once", async () => {
    const before = fake.calls("chat.postMessage").length;
    fake.rateLimit({ method: "chat.postMessage", count: 1, retryAfterSec: 3 });
    const error = await thrown(chat().postMessage(reply));
    expect(error).toBeInstanceOf(ChatRateLimitedError);
    expect(error).toMatchObject({
      code: "SLACK_RATE_LIMITED",
      retryAfterMs: 3_000,
      method: "chat.postMessage",
    });
    expect(fake.calls("chat.postMessage").length - before).toBe(1);
  });

  it("a gone channel → refused for good, saying what to do (ChatDestinationGoneError)", async () => {
    fake.failNext("chat.update", "is_archived");
    const error = await thrown(chat().update({ channel: CHANNEL, ts: "1.000001", text: "x" }));
    expect(error).toBeInstanceOf(ChatDestinationGoneError);
    expect(error).toMatchObject({
      code: "SLACK_DESTINATION_GONE",
      reason: "is_archived",
      channel: CHANNEL,
      message: `Slack refused chat.update in ${CHANNEL} (is_archived): the channel is archived; unarchive it for updates to resume`,
    });
  });

  it("a message Slack will not take → refused for good as built (ChatMessageRefusedError)", async () => {
    fake.failNext("chat.postMessage", "msg_too_long");
    const error = await thrown(chat().postMessage(reply));
    expect(error).toBeInstanceOf(ChatMessageRefusedError);
    expect(error).toMatchObject({ code: "SLACK_MESSAGE_REFUSED", reason: "msg_too_long" });
  });

  it("an outage or an unexpected refusal → failed, may retry (ChatCallFailedError)", async () => {
    fake.failNext("chat.postMessage", { httpStatus: 503 });
    expect(await thrown(chat().postMessage(reply))).toMatchObject({
      code: "SLACK_CALL_FAILED",
      reason: null,
      message: "Slack answered HTTP 503 to chat.postMessage",
    });
    fake.failNext("conversations.replies", "missing_scope");
    const error = await thrown(
      chat().findReply({ channel: CHANNEL, threadTs: "1.000001", eventType: "e", eventId: "x" }),
    );
    expect(error).toBeInstanceOf(ChatCallFailedError);
    expect(error).toMatchObject({ reason: "missing_scope", method: "conversations.replies" });
  });
});

describe("the workflow step's completion (createSlackWorkflowFunctions)", () => {
  const functions = () =>
    createSlackWorkflowFunctions({ token: BOT_TOKEN, apiUrl: fake.apiUrl, timeoutMs: 5_000 });
  const outputs = {
    correlation_id: "c-1",
    external_document_number: "EDN-1",
    order_message_link: "https://x",
  };

  it("completes once; an execution that already ended is `already_ended`, not an error", async () => {
    const { functionExecutionId } = fake.startFunctionExecution("place_order", {});
    expect(await functions().completeSuccess(functionExecutionId, outputs)).toBe("completed");
    expect(await functions().completeError(functionExecutionId, "too late")).toBe("already_ended");
    expect(await functions().completeSuccess("Fx0UNKNOWN", outputs)).toBe("already_ended");
  });

  it("a 429 or an outage → FunctionCompletionError (the placement job retries), with Retry-After", async () => {
    const { functionExecutionId } = fake.startFunctionExecution("place_order", {});
    fake.rateLimit({ method: "functions.completeSuccess", count: 1, retryAfterSec: 2 });
    const limited = await thrown(functions().completeSuccess(functionExecutionId, outputs));
    expect(limited).toBeInstanceOf(FunctionCompletionError);
    expect(limited).toMatchObject({ slackError: "ratelimited", retryAfterMs: 2_000 });
    fake.failNext("chat.getPermalink", { httpStatus: 500 });
    expect(await thrown(functions().permalink(CHANNEL, "1.000001"))).toMatchObject({
      code: "FUNCTION_COMPLETION_FAILED",
      method: "chat.getPermalink",
      message: "Slack answered HTTP 500 to chat.getPermalink",
    });
  });
});
