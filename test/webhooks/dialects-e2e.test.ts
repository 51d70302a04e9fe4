/**
 * Both sandbox dialects end to end, on every store, over the real wire: Order Desk (its composition root) with
 * the customer file's `supplierEvents` for the dialect (none for ours; examples/supplier-events.alt.yml for the
 * alt one), orders placed from Slack through the sandbox, and the sandbox's signed webhooks. Every milestone
 * reaches the thread once in the order the supplier says it happened; an event that beats the placement answer
 * waits as an orphan; a delivery whose answer was lost is retried by the sandbox with the same id and body, and
 * stored and posted once; a cancellation and a parcel exception are read and shown. Then Order Desk runs with a
 * mapping that does not fit the supplier (signed correctly): deliveries are kept unreadable, the admins get one
 * alert per shape, threads get nothing; restarted with the right mapping, the admin's Reprocess posts every update
 * once, in order, and a redelivery of a reprocessed event changes nothing.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import type { OrderDesk } from "../../src/main.ts";
import { REPLY_EVENT_TYPE } from "../../src/orders/updates/post-update.ts";
import { encodeEvent, type SandboxDialect, signingOf } from "../../src/sandbox/dialect.ts";
import type { SandboxHandle } from "../../src/sandbox/sandbox.ts";
import type { SupplierEvent } from "../../src/supplier/events.ts";
import { signDelivery } from "../../src/supplier/webhook-signing.ts";
import { EXAMPLE_DELIVERY } from "../../tools/example-form.ts";
import type { FakeMessage } from "../../tools/fake-slack/index.ts";
import { ALT_DIALECT_SUPPLIER_EVENTS, startWorld, type World } from "../../tools/world.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { type ChildStore, freshDatabase, pgliteChildStore } from "../reliability/harness/stores.ts";
import {
  type SupplierFront,
  startSupplierFront,
  startWebhookTap,
  type WebhookTap,
} from "./dialects-support.ts";
import { until } from "./support.ts";

const HELPDESK = "C0HELPDESK";
const ADMIN_CHANNEL = "C0ITADMIN";
const AGENT = "U0AGENT01";
/** In `admins` of the example customer file. */
const IT_LEAD = "U0ITLEAD";
const REPROCESS = "attention_reprocess_events";
const DIALECTS: readonly SandboxDialect[] = ["default", "alt"];
const CASES = DIALECTS.flatMap((dialect) => TEST_BACKENDS.map((backend) => [dialect, backend] as const));
/** The id header of a delivery in each dialect (stable across its attempts). */
const ID_HEADER: Record<SandboxDialect, string> = { default: "webhook-id", alt: "x-supplier-delivery" };

const silent = pino({ level: "silent" });
const json = (value: unknown) => JSON.stringify(value);

interface DeskOrder {
  id: string;
  status: string;
  correlationId: string | null;
  channel: string;
  ts: string;
}

interface StoredEvent {
  id: string;
  orderId: string | null;
  payload: SupplierEvent;
  postedAt: Date | null;
}

/**
 * The `supplierEvents` file that does NOT fit the dialect, signed as the dialect signs (so deliveries verify):
 * for the alt dialect our default mapping; for ours, the alt example's mapping.
 */
async function wrongMapping(dialect: SandboxDialect, dir: string): Promise<string> {
  const example = parseYaml(await readFile(ALT_DIALECT_SUPPLIER_EVENTS, "utf8")) as Record<string, unknown>;
  const { signing, ...mapping } = example;
  const file = join(dir, `wrong-for-${dialect}.yml`);
  await writeFile(file, stringifyYaml(dialect === "alt" ? { signing } : mapping));
  return file;
}

describe.each(CASES)("the %s dialect end to end (%s)", (dialect, backend) => {
  let world: World;
  let tap: WebhookTap;
  let front: SupplierFront;
  let store: ChildStore;
  let desk: OrderDesk;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "od-dialects-"));
    store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
    tap = await startWebhookTap(ID_HEADER[dialect]);
    let sandbox: SandboxHandle | undefined;
    world = await startWorld({
      dialect,
      // One parcel's ~38 minutes in under a second; a failed delivery is retried 5 s / 3000 later.
      speed: 3000,
      seed: `dialects-${dialect}`,
      sandbox: { webhookUrl: tap.url, logger: silent },
      inFrontOfSandbox: async (url) => {
        front = await startSupplierFront(url, () => sandbox as SandboxHandle);
        return front;
      },
      env: { ...store.env, WEBHOOK_SETTLE_MS: "300", ORDER_DESK_ENV: "development" },
      slack: {
        users: [
          { id: AGENT, name: "alice", realName: "Alice Agent" },
          { id: IT_LEAD, name: "ivy", realName: "Ivy IT Lead" },
        ],
        channels: [
          { id: HELPDESK, name: "helpdesk" },
          { id: ADMIN_CHANNEL, name: "it-admin" },
        ],
      },
    });
    sandbox = world.sandbox;
    tap.target(world.appUrl);
    desk = await world.startDesk({ logger: silent });
  }, 60_000);

  afterAll(async () => {
    await world?.close();
    await tap?.close();
    await store?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function placeFromSlack(ticket: string): Promise<void> {
    const alice = world.user(AGENT);
    const { triggerId } = await alice.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    const view = await alice.openedModal(triggerId);
    const submitted = await alice.submit(view.id, { ...EXAMPLE_DELIVERY, profile: "Acme EU" });
    expect(submitted.outcome.outcome).toBe("closed");
  }

  async function deskOrder(ticket: string): Promise<DeskOrder> {
    return until(
      async () => {
        const { rows } = await desk.store.query(
          `SELECT id, status, correlation_id AS "correlationId", slack_channel_id AS channel,
                  slack_message_ts AS ts
             FROM orders WHERE customer_reference = $1`,
          [ticket],
        );
        return rows[0] as DeskOrder | undefined;
      },
      (o) => o?.correlationId != null && o.ts != null,
      `order ${ticket} placed and shown`,
      30_000,
    ) as Promise<DeskOrder>;
  }

  async function storedEvents(orderId: string): Promise<StoredEvent[]> {
    const { rows } = await desk.store.query(
      `SELECT id, order_id AS "orderId", payload, posted_at AS "postedAt"
         FROM supplier_events WHERE order_id = $1 ORDER BY occurred_at, id`,
      [orderId],
    );
    return rows as StoredEvent[];
  }

  /** The sandbox's events of the order once every one was delivered, oldest first. */
  async function deliveredBySandbox(correlationId: string) {
    const detail = await until(
      () => world.sandbox.order(correlationId),
      (d) => d !== null && d.upcoming.length === 0 && d.events.every((e) => e.delivery.state === "delivered"),
      `the sandbox delivered every event of ${correlationId}`,
      60_000,
    );
    return [...(detail?.events ?? [])].sort(
      (a, b) =>
        Date.parse(a.event.occurredAt) - Date.parse(b.event.occurredAt) ||
        a.event.id.localeCompare(b.event.id),
    );
  }

  /** The order's threaded replies for supplier events, oldest first: the event ids they carry. */
  function replyEventIds(order: DeskOrder): string[] {
    return world.fake
      .thread(order.channel, order.ts)
      .filter((m) => m.ts !== order.ts)
      .map((m) => m.metadata as { event_type?: string; event_payload?: { event_id?: string } } | undefined)
      .filter((meta) => meta?.event_type === REPLY_EVENT_TYPE)
      .map((meta) => String(meta?.event_payload?.event_id));
  }

  /** Posts the order's events, as the supplier of this dialect sends them, straight to Order Desk. */
  async function sendAsSupplier(events: SupplierEvent[], status = 200): Promise<void> {
    for (const event of events) {
      const body = encodeEvent(dialect, event);
      const headers = signDelivery(signingOf(dialect), {
        id: event.id,
        timestamp: Math.floor(Date.now() / 1000),
        body,
        secret: world.webhookSecrets,
      });
      const response = await fetch(`${world.appUrl}/webhooks/supplier`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      expect(response.status, await response.text()).toBe(status);
    }
  }

  it("places through the sandbox and threads every milestone once, in order: an event before the answer first, a lost answer retried", {
    timeout: 180_000,
  }, async () => {
    // Every third delivery's answer is lost after Order Desk stored it: the sandbox tries again.
    let seen = 0;
    tap.loseFirstAnswer(() => ++seen % 3 === 0);
    front.holdUntilFirstEvent("HD-2001");
    await placeFromSlack("HD-2001");
    const order = await deskOrder("HD-2001");
    const sent = await deliveredBySandbox(order.correlationId as string);
    const ids = sent.map((e) => e.event.id);

    // The first event beat the placement answer (held until it was delivered): it names the order's document
    // number too, and the one order with that number still waiting for its answer adopted it (200).
    expect(sent[0]?.event.type).toBe("order.status_changed");
    expect(sent[0]?.event.externalDocumentNumber).toBe("HD-2001-1");
    expect(sent[0]?.delivery.attempts[0]?.httpStatus).toBe(200);

    // Every event stored once, read as the supplier meant it: the same event the sandbox planned, in our terms.
    const stored = await until(
      () => storedEvents(order.id),
      (events) => events.length === ids.length && events.every((e) => e.postedAt !== null),
      `the ${ids.length} events of HD-2001 stored and handled`,
      60_000,
    );
    expect(stored.map((e) => e.id)).toEqual(ids);
    for (const [i, e] of stored.entries()) {
      const planned = sent[i]?.event as SupplierEvent;
      expect(e.payload.type).toBe(planned.type);
      expect(Date.parse(e.payload.occurredAt)).toBe(Date.parse(planned.occurredAt));
      expect(e.payload.correlationId).toBe(planned.correlationId);
      expect(e.payload.data).toEqual(planned.data);
    }

    // Every milestone once, in the order the supplier says they happened: placed, each parcel shipped, delivered.
    const parcels = new Set(
      sent.filter((e) => e.event.type === "order.shipping_updated").map((e) => json(e.event.data.parcel)),
    ).size;
    const replies = await until(
      () => replyEventIds(order),
      (r) => r.length >= parcels + 2,
      "the milestones of HD-2001 in its thread",
      60_000,
    );
    expect(replies).toHaveLength(parcels + 2);
    expect(new Set(replies).size).toBe(replies.length);
    expect(replies.map((id) => ids.indexOf(id))).toEqual(
      [...replies.map((id) => ids.indexOf(id))].sort((a, b) => a - b),
    );
    expect(replies[0]).toBe(ids[0]);
    const kinds = replies.map((id) => {
      const event = sent[ids.indexOf(id)]?.event as SupplierEvent;
      return `${event.type === "order.shipping_updated" ? "parcel" : "order"}:${json((event.data as { status: string }).status)}`;
    });
    expect(kinds[0]).toBe('order:"received"');
    expect(kinds.filter((k) => k === 'parcel:"shipped"')).toHaveLength(parcels);
    expect(kinds.at(-1)).toMatch(/delivered/);
    await until(
      () => deskOrder("HD-2001"),
      (o) => o.status === "delivered",
      "HD-2001 delivered",
    );

    // The deliveries whose answer was lost: retried with the same id and the same body, stored and posted once.
    const lost = tap.attempts.filter((a) => a.lost && ids.includes(a.deliveryId));
    expect(lost.length).toBeGreaterThan(0);
    for (const first of lost) {
      const again = tap.attempts.filter((a) => a.deliveryId === first.deliveryId && !a.lost);
      expect(again.length).toBeGreaterThan(0);
      for (const retry of again) {
        expect(retry.body).toBe(first.body);
        expect(json(JSON.parse(retry.answer))).toContain('"duplicate":true');
      }
      expect(replies.filter((id) => id === first.deliveryId).length).toBeLessThanOrEqual(1);
    }
    expect(new Set(stored.map((e) => e.id)).size).toBe(stored.length);
  });

  it("keeps an event that beats the placement answer as an orphan, then threads it first; reads a parcel exception and a cancellation", {
    timeout: 120_000,
  }, async () => {
    tap.loseFirstAnswer(() => false);
    // A supplier the test speaks for (the sandbox cannot be told to cancel): it takes the order, and answers
    // only after the order's first event was delivered.
    const acceptance = front.acceptHere("HD-2002");
    await placeFromSlack("HD-2002");
    const { correlationId, externalDocumentNumber } = await acceptance.placed;
    const start = Date.now() - 10 * 60_000;
    const at = (minute: number) => new Date(start + minute * 60_000).toISOString();
    const head = (n: number, minute: number) => ({
      id: `evt_${dialect}_${correlationId.slice(0, 8)}_${n}`,
      occurredAt: at(minute),
      correlationId,
      externalDocumentNumber,
    });
    const { externalDocumentNumber: _, ...received } = head(1, 0);
    const events = [
      // Without the document number, nothing can match it until the correlation id is recorded.
      { ...received, type: "order.status_changed", data: { status: "received" } },
      {
        ...head(2, 5),
        type: "order.shipping_updated",
        data: {
          parcel: { number: 1, of: 1 },
          carrier: "DHL Express",
          trackingNumber: "4821000001",
          trackingUrl: "https://tracking.example/4821000001",
          status: "exception",
          exceptionReason: "Address not found",
          lines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
        },
      },
      {
        ...head(3, 9),
        type: "order.status_changed",
        data: { status: "cancelled", previousStatus: "in_fulfilment", reason: "Undeliverable" },
      },
    ] as SupplierEvent[];
    await sendAsSupplier(events.slice(0, 1), 202);
    acceptance.release();
    const order = await deskOrder("HD-2002");
    await sendAsSupplier(events.slice(1));
    const replies = await until(
      () => replyEventIds(order),
      (r) => r.length >= 3,
      "received, the exception and the cancellation in HD-2002's thread",
      30_000,
    );
    expect(replies).toEqual(events.map((e) => e.id));
    const thread = world.fake.thread(order.channel, order.ts).filter((m) => m.ts !== order.ts);
    const text = thread.map((m) => m.versions.at(-1)?.text ?? "").join("\n");
    expect(text).toContain("Address not found");
    expect(text).toMatch(/[Cc]ancelled/);
    expect(thread.filter((m) => m.replyBroadcast)).toHaveLength(2);
    await until(
      () => deskOrder("HD-2002"),
      (o) => o.status === "cancelled",
      "HD-2002 cancelled",
    );
  });

  describe("with a mapping that does not fit, then the right one", () => {
    let order: DeskOrder;
    let ids: string[];
    let alerts: FakeMessage[];

    it("keeps every signed delivery as unreadable, alerts the admins once per shape and posts nothing", {
      timeout: 120_000,
    }, async () => {
      await desk.stop();
      const wrong = await world.customerConfigWith(await wrongMapping(dialect, dir));
      desk = await world.startDesk({ logger: silent, env: { ORDER_DESK_CONFIG: wrong } });
      await placeFromSlack("HD-2003");
      order = await deskOrder("HD-2003");
      const sent = await deliveredBySandbox(order.correlationId as string);
      ids = sent.map((e) => e.event.id);
      for (const e of sent) expect(e.delivery.attempts.at(-1)?.httpStatus).toBe(202);

      const { rows } = await desk.store.query(
        `SELECT shape_key AS "shapeKey", count(*)::int AS n FROM unreadable_events
          WHERE resolved_at IS NULL GROUP BY shape_key`,
      );
      const shapes = rows as { shapeKey: string; n: number }[];
      expect(shapes.reduce((sum, s) => sum + s.n, 0)).toBe(ids.length);
      expect(shapes.length).toBeLessThan(ids.length);
      expect(await storedEvents(order.id)).toEqual([]);

      alerts = await world.fake.waitFor(
        () => {
          const found = world.fake
            .topLevel(ADMIN_CHANNEL)
            .filter((m) => json(m.versions.at(-1)?.blocks).includes(REPROCESS));
          return found.length >= shapes.length ? found : undefined;
        },
        { timeoutMs: 20_000, what: `${shapes.length} alerts with Reprocess` },
      );
      expect(alerts).toHaveLength(shapes.length);
      for (const shape of shapes) {
        expect(alerts.filter((m) => (m.versions.at(-1)?.text ?? "").includes(shape.shapeKey))).toHaveLength(
          1,
        );
      }
      expect(replyEventIds(order)).toEqual([]);
    });

    it("after a restart with the right mapping, the admin's Reprocess posts every update once, in order; a redelivery changes nothing", {
      timeout: 180_000,
    }, async () => {
      expect(alerts, "the previous test kept the deliveries").toBeDefined();
      await desk.stop();
      desk = await world.startDesk({ logger: silent });
      const ivy = world.user(IT_LEAD);
      // Every alert's Reprocess, one click after the other (each is answered before the next is made). Each
      // click reprocesses its own shape only: see the next test for an admin who waits in between.
      for (const alert of alerts) {
        const click = await ivy.clickInMessage({ channel: ADMIN_CHANNEL, ts: alert.ts, actionId: REPROCESS });
        expect(click.response.status).toBe(200);
      }
      await until(
        async () =>
          (
            await desk.store.query(
              "SELECT count(*)::int AS n FROM unreadable_events WHERE resolved_at IS NULL",
            )
          ).rows[0] as { n: number },
        (r) => r.n === 0,
        "every kept delivery read",
        30_000,
      );
      const stored = await until(
        () => storedEvents(order.id),
        (events) => events.length === ids.length && events.every((e) => e.postedAt !== null),
        `the ${ids.length} events of HD-2003 stored and handled`,
        60_000,
      );
      expect(stored.map((e) => e.id)).toEqual(ids);
      const replies = replyEventIds(order);
      expect(new Set(replies).size).toBe(replies.length);
      expect(replies.map((id) => ids.indexOf(id))).toEqual(
        [...replies.map((id) => ids.indexOf(id))].sort((a, b) => a - b),
      );
      expect(replies[0]).toBe(ids[0]);
      const thread = world.fake.thread(order.channel, order.ts).filter((m) => m.ts !== order.ts);
      expect(thread.map((m) => m.versions.at(-1)?.text ?? "").join("\n")).not.toMatch(/arrived late/i);
      await until(
        () => deskOrder("HD-2003"),
        (o) => o.status === "delivered",
        "HD-2003 delivered",
      );

      // The supplier redelivers one of them (same id, same body, signed afresh): stored already, nothing changes.
      const last = tap.attempts.filter((a) => a.deliveryId === ids.at(-1)).at(-1);
      expect(last).toBeDefined();
      const headers = signDelivery(signingOf(dialect), {
        id: last?.deliveryId as string,
        timestamp: Math.floor(Date.now() / 1000),
        body: last?.body as string,
        secret: world.webhookSecrets,
      });
      const again = await fetch(`${world.appUrl}/webhooks/supplier`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: last?.body as string,
      });
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ ok: true, duplicate: true });
      const before = world.fake.thread(order.channel, order.ts).length;
      // Nothing is to happen, so there is nothing to wait for but a moment in which something could have.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(world.fake.thread(order.channel, order.ts)).toHaveLength(before);
      expect(await storedEvents(order.id)).toHaveLength(ids.length);
    });

    it("posts in order when the admin clicks Reprocess on one of the alerts: every shape is read again, and the other alerts close", {
      timeout: 180_000,
    }, async () => {
      const earlier = new Set(world.fake.topLevel(ADMIN_CHANNEL).map((m) => m.ts));
      await desk.stop();
      const wrong = await world.customerConfigWith(await wrongMapping(dialect, dir));
      desk = await world.startDesk({ logger: silent, env: { ORDER_DESK_CONFIG: wrong } });
      await placeFromSlack("HD-2004");
      const late = await deskOrder("HD-2004");
      const lateIds = (await deliveredBySandbox(late.correlationId as string)).map((e) => e.event.id);
      const fresh = await world.fake.waitFor(
        () => {
          const found = world.fake
            .topLevel(ADMIN_CHANNEL)
            .filter((m) => !earlier.has(m.ts) && json(m.versions.at(-1)?.blocks).includes(REPROCESS));
          return found.length >= alerts.length ? found : undefined;
        },
        { timeoutMs: 20_000, what: "the alerts about HD-2004's deliveries" },
      );
      expect(fresh.length).toBeGreaterThan(1);
      await desk.stop();
      desk = await world.startDesk({ logger: silent });
      const ivy = world.user(IT_LEAD);
      // One click: every unreadable delivery is read again, whatever its shape, so the order's events go out in
      // the order they happened; the other alerts are closed as reprocessed, with no button left.
      const [first, ...others] = fresh;
      await ivy.clickInMessage({ channel: ADMIN_CHANNEL, ts: first?.ts ?? "", actionId: REPROCESS });
      await until(
        async () =>
          (
            await desk.store.query(
              `SELECT count(*)::int AS n FROM unreadable_events u
                 LEFT JOIN supplier_events e ON e.id = u.event_id
                WHERE u.resolved_at IS NULL OR e.posted_at IS NULL`,
            )
          ).rows[0] as { n: number },
        (r) => r.n === 0,
        "every unreadable delivery read and its update handled",
        30_000,
      );
      for (const alert of others) {
        await world.fake.waitFor(
          () => {
            const shown = world.fake.message(ADMIN_CHANNEL, alert.ts)?.versions.at(-1);
            return shown && !json(shown.blocks).includes(REPROCESS) ? shown : undefined;
          },
          { timeoutMs: 20_000, what: "the other alert closed as reprocessed" },
        );
      }
      const replies = replyEventIds(late);
      expect(replies.map((id) => lateIds.indexOf(id))).toEqual(
        [...replies.map((id) => lateIds.indexOf(id))].sort((a, b) => a - b),
      );
      const thread = world.fake.thread(late.channel, late.ts).filter((m) => m.ts !== late.ts);
      expect(thread.map((m) => m.versions.at(-1)?.text ?? "").join("\n")).not.toMatch(/arrived late/i);
    });
  });
});
