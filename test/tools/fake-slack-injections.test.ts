/**
 * `fake.injections()`: what a real workspace would act on in what the app sent (a notifying mention, a person, a
 * link elsewhere), found in message text and blocks, edits, ephemerals and views, and nothing found in escaped text.
 */
import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSlack, injectionsIn, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { quietSlackLogger } from "../helpers/quiet-slack-logger.ts";

const CHANNEL = "C0ORDERS";
let fake: FakeSlack;
let client: webApi.WebClient;

beforeAll(async () => {
  fake = await startFakeSlack({ botToken: "xoxb-fake", channels: [{ id: CHANNEL, name: "it-orders" }] });
  client = new webApi.WebClient("xoxb-fake", {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logger: quietSlackLogger,
  });
});

afterAll(async () => {
  await fake.close();
});

const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });

describe("injections the fake Slack finds", () => {
  it("flags notifying mentions, people not allowed and links to other hosts; lets dates, channels and allowed ones be", () => {
    const allow = {
      allowUsers: ["U0AGENT01"],
      allowUsergroups: ["S0HELP"],
      allowLinkHosts: ["track.example"],
    };
    expect(
      injectionsIn(
        "<!channel> <!here|here> <!everyone> <!subteam^S0OTHER> <@U0BOSS> <https://phish.example/login|Track> <mailto:a@b.c|mail>",
        allow,
      ),
    ).toEqual([
      "<!channel>",
      "<!here|here>",
      "<!everyone>",
      "<!subteam^S0OTHER>",
      "<@U0BOSS>",
      "<https://phish.example/login|Track>",
      "<mailto:a@b.c|mail>",
    ]);
    expect(
      injectionsIn(
        "<@U0AGENT01> <!subteam^S0HELP> <#C0ORDERS> <!date^1700000000^{date_short}|x> <https://track.example/1|DHL 1>",
        allow,
      ),
    ).toEqual([]);
    // Escaped, it is text: nothing to act on.
    expect(injectionsIn("&lt;!channel&gt; &lt;https://phish.example|x&gt;")).toEqual([]);
  });

  it("looks at every message version's text and blocks, ephemerals and views", async () => {
    const posted = await client.chat.postMessage({
      channel: CHANNEL,
      text: "Order for TICKET-1 <!channel>",
      blocks: [section("Order for *TICKET-1*")],
    });
    await client.chat.update({
      channel: CHANNEL,
      ts: posted.ts as string,
      text: "Order for TICKET-1",
      blocks: [
        { type: "section", fields: [{ type: "mrkdwn", text: "<https://phish.example/login|Tracking>" }] },
        { type: "section", text: { type: "plain_text", text: "<!here> is plain text here" } },
      ],
    });
    await client.chat.postEphemeral({ channel: CHANNEL, user: "U0AGENT01", text: "<@U0MANAGER> says hi" });
    await client.views.publish({
      user_id: "U0AGENT01",
      view: { type: "home", blocks: [section("<!everyone>")] },
    });
    const found = fake.injections();
    expect(found.map((f) => [f.field, f.found])).toEqual([
      ["text", "<!channel>"],
      ["/blocks/0/fields/0/text", "<https://phish.example/login|Tracking>"],
      ["text", "<@U0MANAGER>"],
      ["/blocks/0/text/text", "<!everyone>"],
    ]);
    expect(found[0]?.where).toBe(`message ${CHANNEL} ${posted.ts} (version 1)`);
    expect(found[1]?.where).toContain("(version 2)");
    expect(fake.injections({ allowUsers: ["U0MANAGER"] })).toHaveLength(3);
  });
});
