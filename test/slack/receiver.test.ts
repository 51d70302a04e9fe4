/**
 * The pure parts of our Slack receiver: it must read every body exactly as Bolt's HTTPReceiver does (the
 * requests themselves, over HTTP, run against both receivers in test/tools/slack-requests.test.ts), and
 * check signatures as Slack documents them.
 */
import { randomBytes } from "node:crypto";
import { App, HTTPModuleFunctions } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { checkSlackSignature, parseSlackBody, SlackRequestReceiver } from "../../src/slack/receiver.ts";
import { createSlackRequests, type SlackRequests, signSlackRequest } from "../../tools/slack-requests.ts";
import { quietSlackLogger } from "../helpers/quiet-slack-logger.ts";
import { sendWholeThenRead } from "../helpers/raw-http.ts";

const FORM = "application/x-www-form-urlencoded";
const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const NOW_MS = 1_800_000_000_000;

function boltParse(text: string, contentType: string): unknown {
  // Bolt's parser reads only these two fields of the request.
  const request = { rawBody: Buffer.from(text), headers: { "content-type": contentType } };
  return HTTPModuleFunctions.parseHTTPRequestBody(
    request as unknown as Parameters<typeof HTTPModuleFunctions.parseHTTPRequestBody>[0],
  );
}

const payload = {
  type: "view_submission",
  view: {
    id: "V1",
    private_metadata: '{"ch":"C1","th":"1.2"}',
    state: {
      values: {
        name: { value: { type: "plain_text_input", value: "Zoë O'Brien + co & partners 100% — 東京" } },
        note: { value: { type: "plain_text_input", value: 'line 1\nline 2\ttab "quoted" =&?#' } },
      },
    },
  },
};

describe("parseSlackBody", () => {
  it.each([
    [
      "an interactive payload with spaces, +, %, & and non-ASCII",
      `payload=${encodeURIComponent(JSON.stringify(payload))}`,
    ],
    [
      "an interactive payload encoded with + for spaces, as Slack sends forms",
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
    ],
    [
      "a slash command's fields",
      "token=x&team_id=T1&channel_id=C1&user_id=U1&command=%2Forder&text=TICKET-123+now&trigger_id=1.2.3",
    ],
    ["a slash command with an empty text", "command=%2Forder&text=&trigger_id=1.2.3"],
  ])("reads %s exactly as Bolt does", (_name, body) => {
    expect(parseSlackBody(Buffer.from(body).toString("latin1"), FORM)).toEqual(boltParse(body, FORM));
  });

  it("reads an Events API JSON body, non-ASCII included, as Bolt does", () => {
    const body = JSON.stringify({ type: "event_callback", event: { type: "app_home_opened", user: "Üser" } });
    expect(parseSlackBody(body, "application/json")).toEqual(boltParse(body, "application/json"));
  });

  it("falls back to the tolerant form parser on a malformed %-escape instead of failing the request", () => {
    expect(parseSlackBody("payload=%7B%22a%22%3A%22100%%22%7D", FORM)).toEqual({ a: "100%" });
  });

  it("throws on a payload that is not JSON (the receiver answers 400)", () => {
    expect(() => parseSlackBody("payload=%7Bnot-json", FORM)).toThrow(SyntaxError);
  });
});

describe("checkSlackSignature", () => {
  const body = Buffer.from("command=%2Forder&text=T-1");
  const signed = (timestampSec: number, text = body.toString()) =>
    signSlackRequest({ signingSecret: SECRET, timestampSec, body: text });
  const check = (headers: { "x-slack-signature"?: string; "x-slack-request-timestamp"?: string }) =>
    checkSlackSignature(
      SECRET,
      { signature: headers["x-slack-signature"], timestamp: headers["x-slack-request-timestamp"] },
      body,
      NOW_MS,
    );

  it("accepts Slack's v0 signature of the exact bytes within five minutes either way", () => {
    expect(check(signed(NOW_MS / 1000))).toBeNull();
    expect(check(signed(NOW_MS / 1000 - 299))).toBeNull();
    expect(check(signed(NOW_MS / 1000 + 299))).toBeNull();
  });

  it("refuses a request older or newer than five minutes, so a captured one cannot be replayed", () => {
    expect(check(signed(NOW_MS / 1000 - 301))).toBe("stale_timestamp");
    expect(check(signed(NOW_MS / 1000 + 301))).toBe("future_timestamp");
  });

  it("refuses a signature of other bytes, a truncated one and missing or non-numeric headers", () => {
    expect(check(signed(NOW_MS / 1000, "command=%2Forder&text=T-2"))).toBe("bad_signature");
    const good = signed(NOW_MS / 1000);
    expect(check({ ...good, "x-slack-signature": good["x-slack-signature"].slice(0, 20) })).toBe(
      "bad_signature",
    );
    expect(check({ "x-slack-request-timestamp": good["x-slack-request-timestamp"] })).toBe("missing_headers");
    expect(check({ ...good, "x-slack-request-timestamp": "12e9" })).toBe("missing_headers");
  });
});

describe("the receiver over HTTP, on a server whose clock reads NOW", () => {
  let http: HttpServer;
  let url: string;
  let reached = 0;

  beforeAll(async () => {
    const receiver = new SlackRequestReceiver({
      signingSecret: SECRET,
      logger: quietSlackLogger,
      bodyLimitBytes: 4096,
      now: () => NOW_MS,
    });
    // Bot ids given and verification off: Bolt makes no Web API call; the URL is a closed port.
    const app = new App({
      // Made per run: a literal token in the repository looks like a leaked credential.
      token: `xoxb-${randomBytes(8).toString("hex")}`,
      botId: "B0TEST",
      botUserId: "U0TEST",
      tokenVerificationEnabled: false,
      receiver,
      clientOptions: { slackApiUrl: "http://127.0.0.1:9/api/" },
      logger: quietSlackLogger,
    });
    app.command("/order", async ({ ack }) => {
      reached++;
      await ack();
    });
    http = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      routes: [{ path: "/slack/events", methods: ["POST"], handler: receiver.requestListener }],
    });
    url = `${http.url}/slack/events`;
  });
  afterAll(() => http?.close({ graceMs: 100 }));

  const requests = (clockMs: number): SlackRequests =>
    createSlackRequests({
      url,
      signingSecret: SECRET,
      teamId: "T0TEST",
      appId: "A0TEST",
      clock: () => clockMs,
    });
  const command = (clockMs: number, text = "TICKET-1") =>
    requests(clockMs).send({
      body: `command=%2Forder&text=${text}&trigger_id=1.2.3`,
      contentType: FORM,
    });

  it("refuses a request stamped more than five minutes ahead, saying to check the clocks", async () => {
    reached = 0;
    const res = await command(NOW_MS + 6 * 60_000);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ ok: false, error: "request_from_the_future" });
    expect(reached).toBe(0);
  });

  it("refuses a request stamped more than five minutes ago with a bare 401", async () => {
    reached = 0;
    const res = await command(NOW_MS - 6 * 60_000);
    expect(res.status).toBe(401);
    expect(res.text).toBe("");
    expect(reached).toBe(0);
  });

  it("hands requests stamped within five minutes either way to the app", async () => {
    reached = 0;
    for (const clock of [NOW_MS, NOW_MS + 4 * 60_000, NOW_MS - 4 * 60_000]) {
      expect((await command(clock)).status).toBe(200);
    }
    expect(reached).toBe(3);
  });

  it("answers 413 to a client that sends all of a large body before reading, instead of resetting the connection", async () => {
    reached = 0;
    // Megabytes over the limit: far more than the connection buffers, so the client is still sending when
    // the server has decided.
    const answer = await sendWholeThenRead(http.url, {
      path: "/slack/events",
      headers: { "content-type": FORM },
      body: Buffer.alloc(8 * 1024 * 1024, "a"),
    });
    expect(answer.status).toBe(413);
    expect(reached).toBe(0);
  });

  it("refuses a body over its limit with 413 without reaching the app", async () => {
    reached = 0;
    const res = await command(NOW_MS, "x".repeat(5000));
    expect(res.status).toBe(413);
    expect(reached).toBe(0);
  });
});
