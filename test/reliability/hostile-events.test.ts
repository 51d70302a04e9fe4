/**
 * Hostile supplier events for real orders: orders placed through Slack (the agent's `/order` and modal, the
 * sandbox supplier), then events signed with the supplier's secret for those orders carrying what an attacker
 * who got hold of the secret, or a supplier bug, would send: a tracking URL that closes its link and mentions
 * @channel, mentions and links in every text field, a 900 KB reason, an unknown type named like a mention. Beside
 * them, unauthenticated requests with 15,000-character headers. Order Desk runs at LOG_LEVEL=debug, where a 900 KB
 * field once froze the log filter.
 *
 * Judged from outside: every message, edit, App Home and admin alert the fake Slack received holds nothing Slack
 * would act on (`fake.injections()`), no call was refused for its size, each order's later updates are in its
 * thread after the hostile ones, and the log has no line that grows with what was sent.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhook } from "../../src/supplier/webhook-signature.ts";
import { type InProcessDesk, startInProcessDesk, watchForCrashes } from "./harness/in-process.ts";
import { scanFile } from "./harness/logs.ts";
import { record } from "./harness/results.ts";
import { orderThroughSlack, slackRequests } from "./harness/slack-driver.ts";
import { AGENT, CHANNELS, startWorld, type World } from "./harness/world.ts";

const PATH = "/webhooks/supplier";
const HOSTILE_URL = "https://track.example/a> <!channel> <https://phish.example/login";
const ORDERS = 3;

interface PlacedOrder {
  ticket: string;
  channel: string;
  correlationId: string;
  messageTs: string;
}

describe("hostile supplier events for orders placed through Slack", () => {
  let world: World;
  let app: InProcessDesk;
  const orders: PlacedOrder[] = [];
  const figures = { inputsTried: 0, crashes: 0, http5xx: 0, leaks: 0 };
  const notes: string[] = [];
  const t0 = Date.now();

  beforeAll(async () => {
    world = await startWorld({ speed: 1, seed: "hostile-events" });
    app = await startInProcessDesk(world, "hostile-events", { LOG_LEVEL: "debug" });
    const requests = slackRequests(world.fake, app.desk.url, world.signingSecret);
    for (let i = 0; i < ORDERS; i++) {
      const spec = { ticket: `EVIL-${i + 1}`, channel: CHANNELS[10 + i] as string };
      const outcome = await orderThroughSlack(world.fake, requests, spec, { deadline: Date.now() + 30_000 });
      expect(outcome.accepted, outcome.problems.join("; ")).toBe(true);
    }
    for (let i = 0; i < ORDERS; i++) {
      const ticket = `EVIL-${i + 1}`;
      orders.push(await placed(ticket));
    }
  });

  afterAll(async () => {
    await app?.close();
    await world?.close();
    const leaks = app ? scanFile(app.logFile, world.secrets()) : [];
    figures.leaks += leaks.length;
    notes.push(...leaks.map((l) => `${l.secret} in the log, line ${l.line}`));
    record(
      { scenario: "hostile supplier events", ...figures, durationMs: Date.now() - t0, notes },
      world?.secrets() ?? [],
    );
  });

  /** The order once the supplier accepted it and its message is in Slack. */
  async function placed(ticket: string): Promise<PlacedOrder> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await app.desk.store.query(
        `SELECT slack_channel_id AS channel, correlation_id AS cid, slack_message_ts AS ts
         FROM orders WHERE customer_reference = $1`,
        [ticket],
      );
      const row = rows[0];
      if (row?.cid && row.ts) {
        return {
          ticket,
          channel: String(row.channel),
          correlationId: String(row.cid),
          messageTs: String(row.ts),
        };
      }
      if (Date.now() > deadline) throw new Error(`${ticket} was not placed within 30 s`);
      await sleep(100);
    }
  }

  async function send(body: string, headers: Record<string, string>): Promise<number> {
    const res = await fetch(`${app.desk.url}${PATH}`, { method: "POST", body, headers });
    await res.arrayBuffer();
    figures.inputsTried++;
    if (res.status >= 500) figures.http5xx++;
    return res.status;
  }

  async function signed(event: { id: string }): Promise<number> {
    const body = JSON.stringify(event);
    const headers = signWebhook({
      id: event.id,
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secret: world.webhookSecrets[0] as string,
    });
    return send(body, { "content-type": "application/json", ...headers });
  }

  function event(order: PlacedOrder, type: string, data: object) {
    return {
      id: `evt_${randomUUID().replace(/-/g, "")}`,
      type,
      occurredAt: new Date().toISOString(),
      correlationId: order.correlationId,
      data,
    };
  }

  async function allPosted(ids: string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await app.desk.store.query(
        "SELECT count(*)::int AS n FROM supplier_events WHERE id = ANY($1) AND posted_at IS NOT NULL",
        [ids],
      );
      if (Number(rows[0]?.n) === ids.length) return;
      if (Date.now() > deadline) throw new Error(`only ${rows[0]?.n} of ${ids.length} events posted`);
      await sleep(200);
    }
  }

  it("threads every hostile event as text, mentions no one, links nowhere else, and the order's later updates follow", async () => {
    const crashes = watchForCrashes();
    const sent: string[] = [];
    const later: string[] = [];
    try {
      for (const [i, order] of orders.entries()) {
        const hostile = [
          event(order, "order.shipping_updated", {
            parcel: { number: 1, of: 1 },
            carrier: "DHL <!here>",
            trackingNumber: "<@U0OUTSIDE> 1Z999",
            trackingUrl: HOSTILE_URL,
            status: "exception",
            exceptionReason: "<!everyone> confirm your address at <https://phish.example/login|DHL>",
            lines: [{ itemNumber: "<!subteam^S0BUYERS> LAP-14-PRO", quantity: 1 }],
          }),
          event(order, "order.status_changed", {
            status: "cancelled",
            reason: `${"Refused at the door <!channel> ".repeat(30_000)}`.slice(0, 900_000 + i),
          }),
          event(order, "order.<!here>_changed", { note: "<!channel>" }),
        ];
        for (const e of hostile) {
          expect(await signed(e), `${order.ticket}: ${e.type}`).toBe(200);
          sent.push(e.id);
        }
        // Slack's pace in the thread: the later update must still get through after the hostile ones.
        const after = event(order, "order.status_changed", { status: "delivered" });
        expect(await signed(after)).toBe(200);
        later.push(after.id);
      }
      await allPosted([...sent, ...later], 60_000);
    } finally {
      crashes.stop();
      figures.crashes += crashes.count;
      notes.push(...crashes.errors.slice(0, 5));
    }
    expect(crashes.errors).toEqual([]);

    for (const order of orders) {
      const thread = world.fake.thread(order.channel, order.messageTs);
      const last = thread.at(-1);
      expect(last?.text, `${order.ticket}: the later update is last in the thread`).toContain("Delivered");
      for (const reply of thread) expect(reply.text.length).toBeLessThan(4_000);
    }
    const refused = world.fake
      .calls()
      .filter((c) => c.response?.ok === false && c.response.error !== "ratelimited")
      .map((c) => `${c.method}: ${String(c.response?.error)}`);
    expect(refused).toEqual([]);
    // The sandbox's own tracking links point at the sandbox; nothing else may be linked, nobody but the agent named.
    const sandboxHost = new URL(world.sandbox.url).hostname;
    expect(world.fake.injections({ allowUsers: [AGENT], allowLinkHosts: [sandboxHost] })).toEqual([]);
    // App Home was refreshed with the orders' tracking, and is part of what was checked.
    expect(JSON.stringify(world.fake.homeView(AGENT)?.definition)).toContain("EVIL-1");
  });

  it("refuses unauthenticated requests with 15,000-character headers cheaply, and logs them cut short", async () => {
    const long = "h".repeat(15_000);
    const statuses = [
      await send("{}", { "content-type": "application/json", "webhook-id": long }),
      await send("{}", { "content-type": `application/${long}`, "webhook-id": "msg_1" }),
      await send("{}", { "content-type": "application/json", "webhook-signature": `v1,${long}` }),
    ];
    // The second lacks the signature headers too: an unsigned request is refused before its content type is read.
    expect(statuses).toEqual([401, 401, 401]);
    await sleep(200);
    const log = readFileSync(app.logFile, "utf8");
    expect(log).not.toContain("h".repeat(100));
    expect(log).not.toContain("Refused at the door <!channel> Refused at the door <!channel> ".repeat(100));
    expect(Math.max(0, ...log.split("\n").map((line) => line.length))).toBeLessThan(20_000);
  });
});
