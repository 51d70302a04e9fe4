/**
 * At LOG_LEVEL=debug the Slack SDKs quote whole request and response bodies: Bolt the incoming view submission
 * (the modal's values), the Web API client the order message it posts (recipient, e-mail, phone, address).
 * Over the real wire, with the app's own logger (src/log.ts) at debug level and personal data off, none of the
 * recipient's data reaches the log, while the SDKs' lines are still there.
 */
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { slackSdkLogger } from "../../src/slack/outbound/index.ts";
import { fakeSlackToken } from "../../tools/fake-tokens.ts";
import { type Harness, HELPDESK, startHarness, VALID_FORM } from "./support/harness.ts";

/** Distinctive values, so a hit in the log can only be a leak. */
const RECIPIENT = {
  first_name: "Quillon",
  last_name: "Vandersnoot",
  email: "quillon.v@corp-example.test",
  phone: "+31 20 794 6032",
  address1: "Wobbelstraat 17",
  city: "Snorkelveen",
  zip: "9999 ZZ",
};

function sink(): { stream: Writable; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const text = () => chunks.join("");
  const lines = () =>
    text()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stream, lines, text };
}

let sandbox: SandboxHandle;
let h: Harness;
const log = sink();

beforeAll(async () => {
  const key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "sdk-logging" });
  h = await startHarness({
    supplierUrl: sandbox.url,
    apiKey: key,
    logger: createLogger({ level: "debug", logPersonalData: false }, log.stream),
  });
});

afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

describe("the Slack SDKs' debug lines", () => {
  it("keep the recipient's contact and address out of the log when personal-data logging is off", async () => {
    const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "LOG-1" });
    const view = await h.agent.openedModal(triggerId);
    const submitted = await h.agent.submit(view.id, {
      ...VALID_FORM,
      ticket: "LOG-1",
      profile: "Acme EU",
      ...RECIPIENT,
    });
    expect(submitted.outcome.outcome).toBe("closed");
    const order = await h.waitForOrder(
      (o) => o.customerReference === "LOG-1" && o.slackMessageTs !== null,
      "LOG-1's message",
    );
    // The order's message, posted through the Web API client, shows the recipient to the channel.
    expect(JSON.stringify(h.fake.message(HELPDESK, order.slackMessageTs ?? "")?.versions)).toContain(
      "Quillon",
    );

    // The SDKs did log the bodies (the control), each behind the redaction.
    const quoted = log.lines().filter((l) => "slackBody" in l);
    expect(quoted.some((l) => String(l.msg).startsWith("http request body"))).toBe(true);
    expect(quoted.length).toBeGreaterThan(3);
    for (const line of quoted) expect(line.slackBody).toBe("[redacted]");
    const text = log.text();
    for (const value of Object.values(RECIPIENT)) expect(text).not.toContain(value);
    expect(text).not.toContain("794 6032");
  });

  it("keep them, as structured JSON, with LOG_PERSONAL_DATA=true, and still never the bot token", () => {
    const kept = sink();
    const sdk = slackSdkLogger(createLogger({ level: "debug", logPersonalData: true }, kept.stream));
    sdk.debug(
      `http request body: ${JSON.stringify({ channel: "C1", text: "for Quillon", token: fakeSlackToken("xoxb", "1-abcdefgh") })}`,
    );
    sdk.debug('ack() response sent (body: {"response_action":"errors"})');
    const [body, ack] = kept.lines();
    expect(body).toMatchObject({
      msg: "http request body:",
      slackBody: { channel: "C1", text: "for Quillon", token: "[redacted]" },
    });
    expect(ack).toMatchObject({
      msg: "ack() response sent (body:",
      slackBody: '{"response_action":"errors"})',
    });
  });
});
