/**
 * Why a Socket Mode connection could not be opened, read through the outbound module's one error mapping: each
 * failure of `apps.connections.open` is produced over the real wire by the fake Slack (or a closed port).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSlackWebClient, silentSdkLogger } from "../../../src/slack/outbound/index.ts";
import {
  describeConnectFailure,
  SocketClosedBeforeHelloError,
  SocketHelloTimeoutError,
} from "../../../src/slack/socket-errors.ts";
import { type FakeSlack, startFakeSlack } from "../../../tools/fake-slack/index.ts";
import { fakeSlackToken } from "../../../tools/fake-tokens.ts";

const APP_TOKEN = fakeSlackToken("xapp");
let fake: FakeSlack;

beforeAll(async () => {
  fake = await startFakeSlack({ botToken: fakeSlackToken("xoxb"), socketMode: { appToken: APP_TOKEN } });
});
afterEach(() => fake.clearFaults());
afterAll(async () => {
  await fake.close();
});

async function openFailure(token = APP_TOKEN, apiUrl = fake.apiUrl): Promise<unknown> {
  const client = createSlackWebClient({
    token,
    policy: "background",
    timeoutMs: 2_000,
    apiUrl,
    logger: silentSdkLogger,
  });
  try {
    await client.apps.connections.open();
  } catch (error) {
    return error;
  }
  throw new Error("apps.connections.open succeeded");
}

describe("describeConnectFailure", () => {
  it("names Slack's refusal, and knows a wrong token type will not heal", async () => {
    expect(describeConnectFailure(await openFailure(fake.botToken))).toEqual({
      label: "not_allowed_token_type",
      message:
        "apps.connections.open: not_allowed_token_type — SLACK_APP_TOKEN must be the app-level token (xapp-…) with connections:write, not the bot token",
      permanent: true,
    });
  });

  it("keeps Slack's Retry-After on a 429", async () => {
    fake.rateLimit({ method: "apps.connections.open", count: 1, retryAfterSec: 4 });
    expect(describeConnectFailure(await openFailure())).toEqual({
      label: "ratelimited",
      message: "apps.connections.open was rate limited (retry after 4 s)",
      permanent: false,
      retryAfterMs: 4_000,
    });
  });

  it("labels an HTTP error by its status, and an unreachable Slack as such", async () => {
    fake.failNext("apps.connections.open", { httpStatus: 503 });
    expect(describeConnectFailure(await openFailure())).toMatchObject({
      label: "http_503",
      permanent: false,
    });
    const down = describeConnectFailure(await openFailure(APP_TOKEN, "http://127.0.0.1:9/api/"));
    expect(down).toMatchObject({ label: "unreachable", permanent: false });
    expect(down.message).toMatch(/^could not reach Slack for apps\.connections\.open: /);
  });

  it("knows its own failures of the WebSocket", () => {
    expect(describeConnectFailure(new SocketHelloTimeoutError(15_000))).toMatchObject({ label: "timeout" });
    expect(describeConnectFailure(new SocketClosedBeforeHelloError())).toMatchObject({
      label: "closed_before_hello",
    });
    expect(describeConnectFailure(new Error("odd"))).toEqual({
      label: "other",
      message: "odd",
      permanent: false,
    });
  });
});
