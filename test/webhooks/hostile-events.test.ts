/**
 * Hostile supplier values, signed like genuine events, rendered into the fake Slack through the real receiver
 * and post-update worker: a tracking URL that would close its link and mention @channel, mentions and links in
 * every text field, a 900 KB reason, and unsigned requests with 15,000-character headers. Nothing Slack would act
 * on gets through (`fake.injections()`), every post fits Slack's limits, and one oversized event never holds up
 * the order's later updates. What the refusals log is read from the app's own logger.
 */
import { Writable } from "node:stream";
import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { buildHomeView } from "../../src/slack/blocks/home.ts";
import { renderAdminAlert } from "../../src/slack/notifier.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { getOrder } from "../../src/store/repositories/orders.ts";
import { getTestStore } from "../helpers/db.ts";
import {
  ADMIN_CHANNEL,
  deliver,
  type Harness,
  ORDERS_CHANNEL,
  placeOrder,
  shippingEvent,
  startHarness,
  statusEvent,
  type TestOrder,
  until,
} from "./support.ts";

const HOSTILE_URL = "https://track.example/a> <!channel> <https://phish.example/login";
const REQUESTER = "U0AGENT01";
/** What the app may mention and link to in these tests: the requester, the supplier's tracking site. */
const ALLOWED = { allowUsers: [REQUESTER], allowLinkHosts: ["track.example.com"] };

let store: Store;
let h: Harness;
const logLines: string[] = [];

beforeAll(async () => {
  store = await getTestStore();
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(String(chunk));
      callback();
    },
  });
  h = await startHarness(store, { logger: createLogger({ level: "debug" }, sink) });
});
afterAll(async () => {
  await h?.close();
});

const at = (minute: number) => new Date(Date.UTC(2026, 10, 24, 8, minute)).toISOString();
const thread = (o: TestOrder) => h.fake.thread(ORDERS_CHANNEL, o.ts);

async function posted(ids: string[]) {
  return until(
    () => Promise.all(ids.map((id) => getEvent(store, id))),
    (events) => events.every((e) => e?.postedAt),
    `events ${ids.join(", ")} posted or skipped`,
  );
}

/** Every call the app made to Slack fits its limits: none was refused. */
function refusedCalls(): string[] {
  return h.fake
    .calls()
    .filter((c) => c.response?.ok === false)
    .map((c) => `${c.method}: ${String(c.response?.error)}`);
}

describe("hostile supplier values in Slack", () => {
  it("shows a tracking URL that would close its link as text, and mentions no one, in the reply, the order message and App Home", async () => {
    const o = await placeOrder(h);
    const events = [
      shippingEvent(o.correlationId, at(1), {
        trackingUrl: HOSTILE_URL,
        carrier: "DHL <!here>",
        trackingNumber: "<@U0BOSS> 1Z999",
        status: "exception",
        exceptionReason:
          "<!everyone> re-enter your address at <https://phish.example/login|the carrier's site>",
        lines: [{ itemNumber: "<!subteam^S0ALL> LAP", quantity: 1 }],
      }),
      statusEvent(o.correlationId, "cancelled", at(2), {
        data: {
          status: "cancelled",
          reason: "<!channel> <@U0BOSS> see <https://phish.example|the portal> & <b>",
        },
      }),
      { ...statusEvent(o.correlationId, "packed", at(3)), type: "order.<!here>_exploded" },
    ];
    for (const e of events) expect((await deliver(h.url, e)).status).toBe(200);
    await posted(events.map((e) => e.id));
    const order = await getOrder(store, o.orderId);
    if (!order) throw new Error("order gone");
    await until(
      () => h.fake.message(ORDERS_CHANNEL, o.ts)?.versions.length ?? 0,
      (n) => n > 1,
      "the order message updated with the tracking",
    );
    // App Home shows the same order.
    const client = new webApi.WebClient(h.fake.botToken, { slackApiUrl: h.fake.apiUrl });
    await client.views.publish({ user_id: REQUESTER, view: buildHomeView([order]) });

    expect(thread(o)).toHaveLength(3);
    expect(h.fake.injections(ALLOWED)).toEqual([]);
    // The values are there, as text: the tracking number without a link, the reason escaped.
    const everything = JSON.stringify([
      thread(o),
      h.fake.message(ORDERS_CHANNEL, o.ts),
      h.fake.homeView(REQUESTER),
    ]);
    expect(everything).toContain("&lt;@U0BOSS&gt; 1Z999");
    expect(everything).toContain("&lt;!channel&gt;");
    expect(everything).not.toContain("<https://phish");
    expect(refusedCalls()).toEqual([]);
  });

  it("posts a 900 KB reason cut short, and the order's later updates follow it", async () => {
    const o = await placeOrder(h);
    const reason = `${"The parcel was refused at the door <!channel> ".repeat(20_000)}`.slice(0, 900_000);
    const big = statusEvent(o.correlationId, "cancelled", at(4), { data: { status: "cancelled", reason } });
    const later = statusEvent(o.correlationId, "delivered", at(5));
    expect((await deliver(h.url, big)).status).toBe(200);
    expect((await deliver(h.url, later)).status).toBe(200);
    await posted([big.id, later.id]);
    const replies = thread(o);
    expect(replies).toHaveLength(2);
    for (const reply of replies) expect(reply.text.length).toBeLessThan(1_000);
    expect(replies[1]?.text).toContain("Delivered");
    expect(h.fake.injections(ALLOWED)).toEqual([]);
    expect(refusedCalls()).toEqual([]);
  });

  it("posts a reply Slack refuses as built in short, skips one refused even in short, and posts the order's later updates", async () => {
    const o = await placeOrder(h);
    const first = statusEvent(o.correlationId, "in_fulfilment", at(6));
    const second = statusEvent(o.correlationId, "picked", at(7));
    const third = statusEvent(o.correlationId, "packed", at(8));
    h.fake.failNext("chat.postMessage", "msg_too_long");
    expect((await deliver(h.url, first)).status).toBe(200);
    await posted([first.id]);
    // Every reply's text names the order (what notifications show), the shortened one too.
    const subject = `TICKET-123 · order ${o.order.externalDocumentNumber}`;
    expect(thread(o).map((m) => m.text)).toEqual([`${subject}: Status: In fulfilment (shortened)`]);

    h.fake.failNext("chat.postMessage", "invalid_blocks", 2);
    expect((await deliver(h.url, second)).status).toBe(200);
    expect((await deliver(h.url, third)).status).toBe(200);
    await posted([second.id, third.id]);
    expect(await getEvent(store, second.id)).toMatchObject({
      replyTs: null,
      postError: { slackError: "invalid_blocks", skipped: true },
    });
    expect(thread(o).map((m) => m.text)).toEqual([
      `${subject}: Status: In fulfilment (shortened)`,
      `${subject}: Status: Packed`,
    ]);
  });

  it("renders an admin alert's words as text and only its own references as links", async () => {
    const alert = renderAdminAlert({
      key: "hostile",
      title: "Order <!here> failed",
      text: [
        "Order OD-1 (<@U0BOSS> <!channel> <https://phish.example|ticket>) could not be posted in ",
        { channel: "C0ORDERS1" },
        " for ",
        { user: REQUESTER },
        "; not a channel: ",
        { channel: "<!everyone>" },
      ],
    });
    await h.slack.postMessage({ channel: ADMIN_CHANNEL, ...alert });
    expect(alert.text).toContain("<#C0ORDERS1>");
    expect(alert.text).toContain(`<@${REQUESTER}>`);
    expect(alert.text).toContain("&lt;@U0BOSS&gt;");
    expect(h.fake.injections(ALLOWED)).toEqual([]);
  });
});

describe("unsigned requests with long headers", () => {
  const long = (prefix: string) => `${prefix}${"a".repeat(15_000)}`;

  it("are refused with a short answer and a short log line, whatever the header held", async () => {
    const before = logLines.length;
    const noSignature = await fetch(h.url, {
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": long("msg_") },
      body: "{}",
    });
    expect(noSignature.status).toBe(401);
    const forged = await fetch(h.url, {
      method: "POST",
      // One long header per request: Node refuses more than 16 KB of headers (431) before any handler runs.
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_1",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": long("v1,"),
      },
      body: "{}",
    });
    expect(forged.status).toBe(401);
    const answer = (await forged.json()) as { message: string };
    expect(answer.message.length).toBeLessThan(300);

    const lines = logLines.slice(before).filter((l) => l.includes("webhook refused"));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThan(1_000);
    expect(JSON.parse(lines[0] as string).webhookId).toBe(`msg_${"a".repeat(60)}…(15004 characters)`);
  });
});
