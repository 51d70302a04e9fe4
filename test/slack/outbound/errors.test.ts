/**
 * The outbound module's one error mapping and its named retry policies, over the real wire: every kind of
 * failure the SDK reports (Slack's refusal, a 429, an HTTP error, a timeout, no server at all) is produced by the
 * fake Slack Web API (or a closed port) and must come out as a `SlackCallError` with its code and details.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createSlackWebClient,
  isCannotPostHere,
  isNotFound,
  RETRY_POLICIES,
  type RetryPolicyName,
  SlackCallError,
  silentSdkLogger,
  slackClientOptions,
  slackErrorOf,
  toSlackCallError,
} from "../../../src/slack/outbound/index.ts";
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

function client(policy: RetryPolicyName, timeoutMs = 5_000, apiUrl = fake.apiUrl) {
  return createSlackWebClient({ token: BOT_TOKEN, policy, timeoutMs, apiUrl, logger: silentSdkLogger });
}

/** What the call threw, mapped. */
async function failure(call: Promise<unknown>, method = "chat.postMessage"): Promise<SlackCallError> {
  try {
    await call;
  } catch (error) {
    return toSlackCallError(method, error);
  }
  throw new Error("the call succeeded");
}

const post = (policy: RetryPolicyName = "background") =>
  client(policy).chat.postMessage({ channel: CHANNEL, text: "hello" });

describe("toSlackCallError: every SDK error kind → SlackCallError", () => {
  it("Slack's refusal (ok: false) → SLACK_REFUSED with Slack's error code", async () => {
    fake.failNext("chat.postMessage", "not_in_channel");
    const error = await failure(post());
    expect(error).toBeInstanceOf(SlackCallError);
    expect(error).toMatchObject({
      code: "SLACK_REFUSED",
      method: "chat.postMessage",
      slackError: "not_in_channel",
      retryAfterMs: null,
      statusCode: null,
      message: "Slack refused chat.postMessage: not_in_channel",
    });
    expect((error.cause as { code?: string }).code).toBe("slack_webapi_platform_error");
  });

  it("a 429 → SLACK_RATE_LIMITED with Retry-After in ms, at least one second", async () => {
    fake.rateLimit({ method: "chat.postMessage", count: 1, retryAfterSec: 7 });
    expect(await failure(post())).toMatchObject({
      code: "SLACK_RATE_LIMITED",
      retryAfterMs: 7_000,
      slackError: null,
      message: "Slack rate-limited chat.postMessage; retry after 7 s",
    });
    fake.rateLimit({ method: "chat.postMessage", count: 1, retryAfterSec: 0 });
    expect((await failure(post())).retryAfterMs).toBe(1_000);
  });

  it("an HTTP error without Slack's answer → SLACK_HTTP_ERROR with the status", async () => {
    fake.failNext("chat.postMessage", { httpStatus: 503 });
    const error = await failure(post());
    expect(error).toMatchObject({
      code: "SLACK_HTTP_ERROR",
      statusCode: 503,
      slackError: null,
      message: "Slack answered HTTP 503 to chat.postMessage",
    });
    expect(error.statusMessage).toEqual(expect.any(String));
    fake.failNext("auth.test", { httpStatus: 404, body: "not here" });
    expect(isNotFound(await failure(client("background").auth.test(), "auth.test"))).toBe(true);
  });

  it("no answer within the timeout → SLACK_UNREACHABLE with the network error", async () => {
    fake.hangNext("chat.postMessage");
    const error = await failure(client("background", 200).chat.postMessage({ channel: CHANNEL, text: "x" }));
    expect(error.code).toBe("SLACK_UNREACHABLE");
    expect(error.networkError).toBeInstanceOf(Error);
    expect(error.message).toMatch(/^chat\.postMessage did not reach Slack: /);
  });

  it("no server at all → SLACK_UNREACHABLE with the network error", async () => {
    const closed = client("background", 2_000, "http://127.0.0.1:9/api/");
    const error = await failure(closed.auth.test(), "auth.test");
    expect(error).toMatchObject({ code: "SLACK_UNREACHABLE", method: "auth.test", slackError: null });
    expect(error.networkError).toBeDefined();
  });

  it("anything else thrown → SLACK_UNREACHABLE without a network error; a SlackCallError passes as it is", () => {
    const bug = new TypeError("boom");
    expect(toSlackCallError("views.open", bug)).toMatchObject({
      code: "SLACK_UNREACHABLE",
      cause: bug,
      networkError: undefined,
      message: "views.open did not reach Slack: boom",
    });
    const ours = new SlackCallError("SLACK_BAD_ANSWER", "chat.postMessage", "no ts");
    expect(toSlackCallError("other", ours)).toBe(ours);
  });

  it("answers the questions the listeners ask: Slack's error code, and whether the bot may post there", async () => {
    fake.failNext("chat.postMessage", "is_archived");
    const archived = await post().catch((error: unknown) => error);
    expect(slackErrorOf(archived)).toBe("is_archived");
    expect(isCannotPostHere(archived)).toBe(true);
    fake.failNext("chat.postMessage", "msg_too_long");
    const tooLong = await post().catch((error: unknown) => error);
    expect(isCannotPostHere(tooLong)).toBe(false);
    expect(slackErrorOf(new Error("x"))).toBeNull();
  });
});

describe("retry policies", () => {
  it("are named, and each client is built from exactly its policy and an explicit timeout", () => {
    expect(RETRY_POLICIES).toEqual({
      interactive: {
        retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1000 },
        rejectRateLimitedCalls: false,
      },
      background: { retryConfig: { retries: 0 }, rejectRateLimitedCalls: true },
    });
    expect(slackClientOptions({ policy: "interactive", timeoutMs: 3_000 })).toEqual({
      timeout: 3_000,
      retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 1000 },
    });
    expect(slackClientOptions({ policy: "background", timeoutMs: 3_000, apiUrl: "http://x/api/" })).toEqual({
      timeout: 3_000,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      slackApiUrl: "http://x/api/",
    });
  });

  it("background: a 429 is rejected at once (one call) for the caller to re-schedule; nothing is re-sent", async () => {
    const before = fake.calls("chat.postMessage").length;
    fake.rateLimit({ method: "chat.postMessage", count: 1, retryAfterSec: 30 });
    expect((await failure(post("background"))).code).toBe("SLACK_RATE_LIMITED");
    fake.failNext("chat.postMessage", { httpStatus: 502 });
    expect((await failure(post("background"))).code).toBe("SLACK_HTTP_ERROR");
    expect(fake.calls("chat.postMessage").length - before).toBe(2);
  });

  it("interactive: a failed call is tried twice more; a 429 is waited out inside the SDK", async () => {
    const before = fake.calls("auth.test").length;
    fake.failNext("auth.test", { httpStatus: 503 }, 2);
    await expect(client("interactive").auth.test()).resolves.toMatchObject({ ok: true });
    expect(fake.calls("auth.test").length - before).toBe(3);

    fake.failNext("auth.test", { httpStatus: 503 }, 3);
    expect((await failure(client("interactive").auth.test(), "auth.test")).statusCode).toBe(503);

    const posts = fake.calls("chat.postMessage").length;
    fake.rateLimit({ method: "chat.postMessage", count: 1, retryAfterSec: 1 });
    await expect(post("interactive")).resolves.toMatchObject({ ok: true });
    expect(fake.calls("chat.postMessage").length - posts).toBe(2);
  });
});
