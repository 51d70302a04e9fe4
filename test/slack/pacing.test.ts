/**
 * Every post keeps to Slack's per-channel pace: order messages, admin alerts and the post-update worker's replies
 * share one `ChannelPacer`. The fake Slack enforces a pace (one more message of burst than ours allows, so the
 * delays of a busy machine do not count against us) and answers 429 to a post that comes too soon.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { loadCustomerConfig } from "../../src/config/customer.ts";
import type { Order } from "../../src/orders/model/order.ts";
import { ChannelPacer } from "../../src/orders/updates/pacer.ts";
import { createSlackNotifier } from "../../src/slack/notifier.ts";
import { createSlackWebClient } from "../../src/slack/outbound/index.ts";
import type { Store } from "../../src/store/db.ts";
import { insertOrder } from "../../src/store/repositories/orders.ts";
import { validOrder } from "../../tools/example-order.ts";
import { type FakeSlack, startFakeSlack } from "../../tools/fake-slack/index.ts";
import { getTestStore } from "../helpers/db.ts";

const CHANNEL = "C0BUSY01";
let store: Store;
let fake: FakeSlack;

beforeAll(async () => {
  store = await getTestStore();
  fake = await startFakeSlack({
    botToken: "xoxb-pacing",
    channels: [{ id: CHANNEL, name: "it-orders" }],
    channelPace: { perSecond: 1, burst: 4 },
  });
});
afterAll(async () => {
  await fake?.close();
});

async function newOrder(ticket: string): Promise<Order> {
  const id = randomUUID();
  const edn = `${ticket}-1`;
  const { order } = await insertOrder(store, {
    id,
    profile: "Acme EU",
    externalDocumentNumber: edn,
    customerReference: ticket,
    requestedBy: "U0AGENT01",
    source: "command",
    slackChannelId: CHANNEL,
    status: "queued",
    request: validOrder({ externalDocumentNumber: edn, customerReference: ticket }),
  });
  return order;
}

it("posts seven order messages for one channel at once (a restart's backlog) at Slack's pace, with no 429", {
  timeout: 30_000,
}, async () => {
  const customer = createCustomer(await loadCustomerConfig("examples/order-desk.config.yml"));
  const notifier = createSlackNotifier({
    client: createSlackWebClient({
      token: fake.botToken,
      policy: "background",
      timeoutMs: 5_000,
      apiUrl: fake.apiUrl,
    }),
    customer,
    // Alerts go to the same channel here: they share its pace with the order messages.
    adminChannel: CHANNEL,
    pacer: new ChannelPacer(),
  });
  const orders = await Promise.all(
    Array.from({ length: 7 }, (_, i) => newOrder(`PACE-${i + 1}-${Date.now()}`)),
  );
  await Promise.all([
    ...orders.map((o) => notifier.publish(o, { kind: "placing" })),
    notifier.alertAdmins({ key: `pace-${Date.now()}`, title: "A test alert", text: "In the same channel." }),
  ]);

  const posts = fake.calls("chat.postMessage").filter((c) => c.args.channel === CHANNEL);
  expect(posts.filter((c) => c.httpStatus === 429)).toEqual([]);
  expect(fake.topLevel(CHANNEL)).toHaveLength(8);
});
