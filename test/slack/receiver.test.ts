/**
 * The pure parts of our Slack receiver: it must read every body exactly as Bolt's HTTPReceiver does (the
 * requests themselves, over HTTP, run against both receivers in test/devtools/slack-requests.test.ts), and
 * check signatures as Slack documents them.
 */
import { HTTPModuleFunctions } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { signSlackRequest } from "../../src/devtools/slack-requests.ts";
import { checkSlackSignature, parseSlackBody } from "../../src/slack/receiver.ts";

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
    expect(check(signed(NOW_MS / 1000 + 301))).toBe("stale_timestamp");
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
