/**
 * The fake Slack's file uploads, driven by the Slack SDK's own `filesUploadV2` (files.getUploadURLExternal → the
 * bytes → files.completeUploadExternal), so the fake answers the flow as the SDK expects it on Slack.
 */
import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { fakeSlackToken } from "../../tools/fake-tokens.ts";
import { quietSlackLogger } from "../helpers/quiet-slack-logger.ts";

const TOKEN = fakeSlackToken("xoxb", "files-test");
let fake: FakeSlack;

beforeAll(async () => {
  fake = await startFakeSlack({
    botToken: TOKEN,
    users: [{ id: "U0ITLEAD", name: "ivy", realName: "Ivy IT Lead" }],
    channels: [{ id: "C0ITADMIN", name: "it-admin" }],
  });
});
afterAll(async () => {
  await fake?.close();
});

const client = () =>
  new webApi.WebClient(TOKEN, {
    slackApiUrl: fake.apiUrl,
    logger: quietSlackLogger,
    retryConfig: { retries: 0 },
  });

it("takes a file from the SDK's filesUploadV2 and shares it in the channel", async () => {
  const content = "order_number,ticket\r\nHD-1-1,HD-1\r\n";
  await client().filesUploadV2({
    channel_id: "C0ITADMIN",
    filename: "orders.csv",
    title: "Orders",
    content,
  });
  const file = fake.files().find((f) => f.filename === "orders.csv");
  expect(file).toMatchObject({ completed: true, title: "Orders", length: Buffer.byteLength(content) });
  expect(file?.content?.toString("utf8")).toBe(content);
  expect(file?.shares).toEqual([{ channel: "C0ITADMIN", ts: expect.any(String) }]);
  expect(fake.topLevel("C0ITADMIN").at(-1)?.text).toContain("orders.csv");
});

it("refuses to complete a file whose bytes never arrived", async () => {
  const web = client();
  const target = await web.files.getUploadURLExternal({ filename: "never.csv", length: 10 });
  await expect(
    web.files.completeUploadExternal({ files: [{ id: target.file_id as string }], channel_id: "C0ITADMIN" }),
  ).rejects.toMatchObject({ data: { error: "file_upload_failed" } });
});

it("asks for files:write", async () => {
  const limited = await startFakeSlack({ botToken: TOKEN, scopes: ["chat:write"] });
  try {
    const web = new webApi.WebClient(TOKEN, {
      slackApiUrl: limited.apiUrl,
      logger: quietSlackLogger,
      retryConfig: { retries: 0 },
    });
    await expect(web.files.getUploadURLExternal({ filename: "x.csv", length: 1 })).rejects.toMatchObject({
      data: { error: "missing_scope", needed: "files:write" },
    });
  } finally {
    await limited.close();
  }
});
