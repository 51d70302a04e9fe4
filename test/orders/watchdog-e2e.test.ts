/**
 * The watchdog of stalled orders end to end, on every store, over the real wire: Order Desk (its composition root)
 * with an injected clock, orders placed from Slack through the sandbox, whose fulfilment is told to stall, and the
 * supplier's signed webhooks. The clock is set back when an order is placed, so its deadlines have passed in the
 * database's time (which runs the jobs) once it is set right again: each condition is reported once (a thread
 * reply, an admin alert with Mark handled, an item in "Needs attention", the counter), and clears itself (the item
 * closed by Order Desk, the alert rewritten, no second report) when the supplier's event comes. A restart between
 * a due check and its report reports it once, from the new process.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderDesk } from "../../src/main.ts";
import { encodeEvent, signingOf } from "../../src/sandbox/dialect.ts";
import type { SupplierEvent } from "../../src/supplier/events.ts";
import { signDelivery } from "../../src/supplier/webhook-signing.ts";
import { EXAMPLE_DELIVERY } from "../../tools/example-form.ts";
import { EXAMPLE_CUSTOMER_CONFIG, startWorld, type World } from "../../tools/world.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { type ChildStore, freshDatabase, pgliteChildStore } from "../reliability/harness/stores.ts";
import { until } from "../webhooks/support.ts";

const HELPDESK = "C0HELPDESK";
const ADMIN_CHANNEL = "C0ITADMIN";
const AGENT = "U0AGENT01";
const IT_LEAD = "U0ITLEAD";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WATCHDOG_REPLY = "order_desk_watchdog";
const silent = pino({ level: "silent" });

interface DeskOrder {
  id: string;
  correlationId: string;
  channel: string;
  ts: string;
  externalDocumentNumber: string;
}

describe.each(TEST_BACKENDS)("the watchdog end to end (%s)", (backend) => {
  let world: World;
  let store: ChildStore;
  let desk: OrderDesk;
  let dir: string;
  /** How far Order Desk's clock is behind the real one (the database's, which runs the jobs). */
  let behindMs = 0;
  const now = () => new Date(Date.now() - behindMs);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "od-watchdog-"));
    const customerConfig = join(dir, "order-desk.config.yml");
    // Lead times give every order an expected delivery (5 business days), hence a ship date to miss.
    await writeFile(
      customerConfig,
      `${await readFile(EXAMPLE_CUSTOMER_CONFIG, "utf8")}\nleadTimes:\n  default: 5\n`,
    );
    store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
    world = await startWorld({
      speed: 60_000,
      seed: `watchdog-${backend}`,
      customerConfig,
      sandbox: {
        logger: silent,
        stall: [{ match: "WD-1", silent: true }, { match: "WD-2" }, { match: "WD-3", silent: true }],
      },
      env: { ...store.env, WEBHOOK_SETTLE_MS: "0", ORDER_DESK_ENV: "development" },
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
    desk = await world.startDesk({ logger: silent, now });
  }, 60_000);

  afterAll(async () => {
    await world?.close();
    await store?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function placeFromSlack(ticket: string): Promise<DeskOrder> {
    const alice = world.user(AGENT);
    const { triggerId } = await alice.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    const view = await alice.openedModal(triggerId);
    const submitted = await alice.submit(view.id, { ...EXAMPLE_DELIVERY, profile: "Acme EU" });
    expect(submitted.outcome.outcome).toBe("closed");
    return (await until(
      async () => {
        const { rows } = await desk.store.query(
          `SELECT o.id, o.correlation_id AS "correlationId", o.slack_channel_id AS channel,
                  o.slack_message_ts AS ts, o.external_document_number AS "externalDocumentNumber"
             FROM orders o JOIN watchdog_orders w ON w.order_id = o.id WHERE o.customer_reference = $1`,
          [ticket],
        );
        return rows[0] as DeskOrder | undefined;
      },
      (o) => o?.correlationId != null && o.ts != null,
      `order ${ticket} placed, shown and watched`,
      30_000,
    )) as DeskOrder;
  }

  function watchdogReplies(order: DeskOrder) {
    return world.fake
      .thread(order.channel, order.ts)
      .filter((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === WATCHDOG_REPLY);
  }

  function alertsAbout(order: DeskOrder) {
    return world.fake
      .topLevel(ADMIN_CHANNEL)
      .filter((m) => (m.versions.at(-1)?.text ?? m.text).includes(order.externalDocumentNumber));
  }

  async function reports(order: DeskOrder) {
    const { rows } = await desk.store.query(
      `SELECT r.condition, r.cleared_at AS "clearedAt", a.kind, a.resolution, a.resolved_by AS "resolvedBy"
         FROM watchdog_reports r LEFT JOIN attention_items a ON a.id = r.attention_item_id
        WHERE r.order_id = $1 ORDER BY r.reported_at, r.condition`,
      [order.id],
    );
    return rows as Array<{
      condition: string;
      clearedAt: Date | null;
      kind: string | null;
      resolution: string | null;
      resolvedBy: string | null;
    }>;
  }

  /** Posts a signed event to Order Desk as the supplier would. */
  async function sendAsSupplier(order: DeskOrder, id: string, type: string, data: object): Promise<void> {
    const event = {
      id,
      type,
      occurredAt: new Date().toISOString(),
      correlationId: order.correlationId,
      externalDocumentNumber: order.externalDocumentNumber,
      data,
    } as SupplierEvent;
    const body = encodeEvent("default", event);
    const headers = signDelivery(signingOf("default"), {
      id,
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secret: world.webhookSecrets,
    });
    const response = await fetch(`${world.appUrl}/webhooks/supplier`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
    expect(response.status, await response.text()).toBe(200);
  }

  async function stalledCount(condition: string): Promise<number> {
    const { values } = await desk.metrics.ordersStalled.get();
    return values.find((v) => v.labels.profile === "Acme EU" && v.labels.condition === condition)?.value ?? 0;
  }

  it("no supplier event within acceptedWithinHours: one reply, one alert with Mark handled; cleared by the first event", {
    timeout: 60_000,
  }, async () => {
    behindMs = 25 * HOUR;
    const order = await placeFromSlack("WD-1");
    behindMs = 0;
    const [reply] = await until(
      async () => watchdogReplies(order),
      (r) => r.length === 1,
      "the watchdog's reply",
      20_000,
    );
    expect(reply?.text).toContain(
      `No word from the supplier: order ${order.externalDocumentNumber} was placed on`,
    );
    expect(reply?.text).toContain("no update at all in 24 hours");
    const [alert] = await until(
      async () => alertsAbout(order),
      (a) => a.length === 1,
      "the admins' alert",
    );
    expect(JSON.stringify(alert?.versions.at(-1)?.blocks)).toContain("Mark handled");
    expect(await reports(order)).toEqual([
      {
        condition: "not_accepted",
        clearedAt: null,
        kind: "stalled_order",
        resolution: null,
        resolvedBy: null,
      },
    ]);
    expect(await stalledCount("not_accepted")).toBe(1);

    // The supplier speaks at last: the report clears itself, the alert says so, nothing is reported again.
    await sendAsSupplier(order, `evt_wd1_${backend}`, "order.status_changed", { status: "received" });
    const [cleared] = await until(
      () => reports(order),
      (r) => r[0]?.clearedAt != null && r[0]?.resolution === "obsolete",
      "the report cleared",
      20_000,
    );
    expect(cleared).toMatchObject({ resolution: "obsolete", resolvedBy: "order-desk" });
    await until(
      async () => alertsAbout(order)[0]?.versions.at(-1)?.text ?? "",
      (text) => text.includes("Closed: the supplier's first update came by Order Desk"),
      "the alert rewritten",
    );
    expect(watchdogReplies(order)).toHaveLength(1);
    expect(alertsAbout(order)).toHaveLength(1);
    expect(await stalledCount("not_accepted")).toBe(1);
  });

  it("not shipped after the expected ship date, then not delivered after the estimate: each reported once and cleared", {
    timeout: 90_000,
  }, async () => {
    // Placed "20 days ago": its expected delivery (5 business days later) is long past.
    behindMs = 20 * DAY;
    const order = await placeFromSlack("WD-2");
    // The sandbox accepts it and starts it, then never ships: wait for that before the clock is set right.
    await until(
      async () =>
        (await desk.store.query("SELECT status FROM orders WHERE id = $1", [order.id])).rows[0]?.status,
      (status) => status === "in_fulfilment",
      "in fulfilment",
      20_000,
    );
    behindMs = 0;
    await until(
      async () => watchdogReplies(order),
      (r) => r.length === 1,
      "the not-shipped reply",
      20_000,
    );
    expect(watchdogReplies(order)[0]?.text).toContain("Not shipped yet");
    expect((await reports(order)).map((r) => r.condition)).toEqual(["not_shipped"]);
    // The report's item and alert come after the reply (once Slack answered it): a supplier event before them
    // clears the report with nothing to close, and the admins are rightly never told. Not what this test is about.
    await until(
      async () => alertsAbout(order),
      (a) => a.length === 1,
      "the not-shipped alert",
    );

    // It ships: "not shipped" clears, and "not delivered" (its estimate long past too) is reported.
    await sendAsSupplier(order, `evt_wd2_ship_${backend}`, "order.status_changed", {
      status: "shipped",
      previousStatus: "in_fulfilment",
    });
    const after = await until(
      () => reports(order),
      (r) => r.length === 2 && r[0]?.clearedAt != null && r[1]?.kind === "stalled_order",
      "not shipped cleared, not delivered reported",
      20_000,
    );
    expect(after.map((r) => [r.condition, r.clearedAt !== null, r.resolution])).toEqual([
      ["not_shipped", true, "obsolete"],
      ["not_delivered", false, null],
    ]);
    await until(
      async () => watchdogReplies(order),
      (r) => r.length === 2,
      "the not-delivered reply",
    );
    expect(watchdogReplies(order)[1]?.text).toContain("Not delivered yet");
    await until(
      async () => alertsAbout(order),
      (a) => a.length === 2,
      "the not-delivered alert",
    );

    await sendAsSupplier(order, `evt_wd2_delivered_${backend}`, "order.status_changed", {
      status: "delivered",
      previousStatus: "shipped",
    });
    await until(
      () => reports(order),
      (r) => r.every((report) => report.clearedAt !== null && report.resolution === "obsolete"),
      "everything cleared",
      20_000,
    );
    expect(watchdogReplies(order)).toHaveLength(2);
    expect(alertsAbout(order)).toHaveLength(2);
    expect(await stalledCount("not_shipped")).toBe(1);
    expect(await stalledCount("not_delivered")).toBe(1);
  });

  it("a restart between a due check and its report: reported once, by the new process", {
    timeout: 90_000,
  }, async () => {
    behindMs = 25 * HOUR;
    const order = await placeFromSlack("WD-3");
    // Its check is queued and due (by the database's clock), but this process's clock says not yet: it stops
    // before it reports.
    await until(
      async () =>
        (
          await desk.store.query(
            `SELECT 1 FROM ${desk.jobs.schema}.job
              WHERE name = 'watchdog' AND data->>'orderId' = $1 AND data ? 'dueAt'`,
            [order.id],
          )
        ).rows.length,
      (n) => n > 0,
      "the check queued",
    );
    await desk.stop();
    expect(watchdogReplies(order)).toHaveLength(0);
    behindMs = 0;
    desk = await world.startDesk({ logger: silent, now });
    await until(
      async () => watchdogReplies(order),
      (r) => r.length === 1,
      "the reply after the restart",
      30_000,
    );
    await until(
      async () => alertsAbout(order),
      (a) => a.length === 1,
      "the alert after the restart",
    );
    // A further check of the order (events, a stale job) reports nothing again.
    await sendAsSupplier(order, `evt_wd3_${backend}`, "order.status_changed", { status: "received" });
    await until(
      () => reports(order),
      (r) => r[0]?.clearedAt != null,
      "cleared",
    );
    expect(watchdogReplies(order)).toHaveLength(1);
    expect(alertsAbout(order)).toHaveLength(1);
  });
});
