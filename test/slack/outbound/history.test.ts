/**
 * Reading conversations within Slack's budget for apps distributed outside its Marketplace (one
 * `conversations.replies` / `conversations.history` call a minute, 15 messages a call), against the fake Slack
 * enforcing that budget on an injected clock: pages of 15, only the messages since the attempt, a pause between
 * pages, and a 429 waited out (and the pace slowed to it) instead of a search that never gets past page two.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSlackChat, HistoryPace } from "../../../src/slack/outbound/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../tools/fake-slack/index.ts";
import { fakeSlackToken } from "../../../tools/fake-tokens.ts";

const BOT_TOKEN = fakeSlackToken("xoxb");
const CHANNEL = "C0ORDERS";
const EVENT_TYPE = "order_desk_supplier_event";
const MINUTE = 60_000;

let now = Date.UTC(2026, 10, 27, 9, 0, 0);
let fake: FakeSlack;

/** A pace on the fake's clock: its pauses move that clock instead of waiting. */
function pace(intervalMs: number): HistoryPace {
  return new HistoryPace({
    intervalMs,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  });
}

beforeAll(async () => {
  fake = await startFakeSlack({
    botToken: BOT_TOKEN,
    channels: [{ id: CHANNEL, name: "it-orders" }],
    clock: () => now,
    limitedHistory: true,
  });
});
afterAll(async () => {
  await fake.close();
});
// Each test starts with the budget of a fresh minute.
beforeEach(() => {
  now += 10 * MINUTE;
});

/** An order's thread of 40 replies, one every 10 s; returns the parent's ts and when each reply was posted. */
async function threadOf40(): Promise<{ parent: string; postedAt: number[]; tsOf: string[] }> {
  const chat = createSlackChat({ token: BOT_TOKEN, apiUrl: fake.apiUrl, timeoutMs: 5_000 });
  const { ts: parent } = await chat.postMessage({ channel: CHANNEL, text: "Order PO-1" });
  const postedAt: number[] = [];
  const tsOf: string[] = [];
  for (let i = 0; i < 40; i++) {
    now += 10_000;
    postedAt.push(now);
    const metadata = { event_type: EVENT_TYPE, event_payload: { event_id: `evt_${i}` } };
    const { ts } = await chat.postMessage({
      channel: CHANNEL,
      text: `update ${i}`,
      thread_ts: parent,
      metadata,
    });
    tsOf.push(ts);
  }
  return { parent, postedAt, tsOf };
}

const repliesCallsSince = (seq: number) => fake.calls("conversations.replies").filter((c) => c.seq > seq);
const lastSeq = () => fake.calls().at(-1)?.seq ?? 0;

describe("finding a reply after an interrupted post, within Slack's limited budget", () => {
  it("reads only the replies since the attempt, 15 a page: one call finds it", async () => {
    const { parent, postedAt, tsOf } = await threadOf40();
    const before = lastSeq();
    const chat = createSlackChat({
      token: BOT_TOKEN,
      apiUrl: fake.apiUrl,
      timeoutMs: 5_000,
      history: pace(MINUTE),
    });
    const found = await chat.findReply({
      channel: CHANNEL,
      threadTs: parent,
      eventType: EVENT_TYPE,
      eventId: "evt_37",
      attemptedAt: new Date(postedAt[37]! - 500),
    });
    expect(found).toBe(tsOf[37]);
    const calls = repliesCallsSince(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ httpStatus: 200, args: { limit: "15" } });
  });

  it("pages through a whole thread a minute apart, never refused", async () => {
    const { parent, tsOf } = await threadOf40();
    const before = lastSeq();
    const chat = createSlackChat({
      token: BOT_TOKEN,
      apiUrl: fake.apiUrl,
      timeoutMs: 5_000,
      history: pace(MINUTE),
    });
    // Without a time of attempt: the parent and 40 replies, 15 a page.
    expect(
      await chat.findReply({ channel: CHANNEL, threadTs: parent, eventType: EVENT_TYPE, eventId: "evt_39" }),
    ).toBe(tsOf[39]);
    const calls = repliesCallsSince(before);
    expect(calls).toHaveLength(3);
    expect(calls.every((c) => c.httpStatus === 200 && c.args.limit === "15")).toBe(true);
    for (let i = 1; i < calls.length; i++)
      expect(calls[i]!.at - calls[i - 1]!.at).toBeGreaterThanOrEqual(MINUTE);
  });

  it("a pace faster than the budget: Slack's 429 is waited out, the same page asked again, and the pace slows to it", async () => {
    const { parent, tsOf } = await threadOf40();
    const before = lastSeq();
    const history = pace(1_000);
    const chat = createSlackChat({ token: BOT_TOKEN, apiUrl: fake.apiUrl, timeoutMs: 5_000, history });
    expect(
      await chat.findReply({ channel: CHANNEL, threadTs: parent, eventType: EVENT_TYPE, eventId: "evt_39" }),
    ).toBe(tsOf[39]);
    const statuses = repliesCallsSince(before).map((c) => c.httpStatus);
    // Page 1; page 2 refused once, then given; page 3 at the slowed pace, given at once.
    expect(statuses).toEqual([200, 429, 200, 200]);
    expect(history.intervalMs).toBeGreaterThanOrEqual(MINUTE);
  });

  it("without the budget (an app built for its own workspace) the fake answers every call, with the limit asked", async () => {
    const open = await startFakeSlack({
      botToken: BOT_TOKEN,
      channels: [{ id: CHANNEL, name: "it-orders" }],
    });
    try {
      const chat = createSlackChat({ token: BOT_TOKEN, apiUrl: open.apiUrl, timeoutMs: 5_000 });
      const { ts: parent } = await chat.postMessage({ channel: CHANNEL, text: "Order PO-2" });
      for (let i = 0; i < 3; i++) {
        expect(
          await chat.findReply({
            channel: CHANNEL,
            threadTs: parent,
            eventType: EVENT_TYPE,
            eventId: "evt_x",
          }),
        ).toBeNull();
      }
      expect(open.calls("conversations.replies").map((c) => c.httpStatus)).toEqual([200, 200, 200]);
    } finally {
      await open.close();
    }
  });
});
