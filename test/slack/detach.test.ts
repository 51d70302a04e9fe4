/**
 * Undoing a wrong "Attach to order…" (issue #35): the attach's alert carries Detach, for admins (checked on the
 * server), decided before its ack within the click's bound, once. Detach makes the correlation id no longer the
 * order's (its alias removed, or the order's own cleared when the attach had made it so), the order's events of it
 * orphans again (except those that name the order's number) with a new alert, rewrites the attach's alert and
 * leaves a note in the order's thread, whose replies stay. Over the real wire: signed Slack requests, the fake
 * Slack Web API, the sandbox supplier, signed webhook deliveries, the store of the run (PGlite, or PostgreSQL with
 * DATABASE_URL).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import type { Order } from "../../src/orders/model/order.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { getAttention } from "../../src/store/repositories/attention.ts";
import { getEvent, listEventsForOrder } from "../../src/store/repositories/events.ts";
import { listOrderAliases } from "../../src/store/repositories/order-aliases.ts";
import { createOrphanSweeper } from "../../src/webhooks/orphans.ts";
import { webhookRoute } from "../../src/webhooks/receiver.ts";
import type { FakeMessage } from "../../tools/fake-slack/index.ts";
import { deliver, SECRET, shippingEvent, statusEvent, until } from "../webhooks/support.ts";
import {
  ADMIN,
  type Harness,
  HELPDESK,
  MANAGER,
  OUTSIDER,
  startHarness,
  VALID_FORM,
} from "./support/harness.ts";

const ADMIN_USER = "U0ADMIN01";

let sandbox: SandboxHandle;
let h: Harness;
let webhooks: HttpServer;
let webhookUrl: string;

const json = (value: unknown) => JSON.stringify(value);
const latest = (m: FakeMessage | undefined) => m?.versions.at(-1);
const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

beforeAll(async () => {
  const key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "detach" });
  h = await startHarness({
    supplierUrl: sandbox.url,
    apiKey: key,
    users: [{ id: ADMIN_USER, name: "ada", realName: "Ada Admin" }],
    customize: (config) => {
      config.admins = [ADMIN_USER];
      config.adminGroups = ["S0HELPDESK"];
    },
    workPostUpdates: true,
  });
  webhooks = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    routes: [webhookRoute({ store: h.store, jobs: h.jobs, getSecrets: () => [SECRET], settleMs: 0 })],
  });
  webhookUrl = `${webhooks.url}/webhooks/supplier`;
});

afterAll(async () => {
  await webhooks?.close({ graceMs: 500 });
  await h?.close();
  await sandbox?.close();
});

async function placedOrder(ticket: string): Promise<Order> {
  const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
  const view = await h.agent.openedModal(triggerId);
  const submitted = await h.agent.submit(view.id, { ...VALID_FORM, ticket, profile: "Acme EU" });
  expect(submitted.outcome.outcome).toBe("closed");
  return h.waitForOrder(
    (o) => o.customerReference === ticket && o.correlationId !== null && o.slackMessageTs !== null,
    `${ticket} placed`,
    20_000,
  );
}

function replies(order: Order): FakeMessage[] {
  const thread = h.fake.thread(order.slackChannelId ?? "", order.slackThreadTs ?? order.slackMessageTs ?? "");
  return thread.filter((m) => m.ts !== order.slackMessageTs);
}

function answers(): string[] {
  return h.fake.responses().map((r) => String((r.body as { text?: unknown }).text ?? ""));
}

async function answered(needle: string, since: number): Promise<string> {
  return h.fake.waitFor(
    () =>
      answers()
        .slice(since)
        .find((t) => t.includes(needle)),
    { timeoutMs: 10_000, what: `an answer with "${needle}"` },
  );
}

/** The admin channel's latest alert about `needle` showing `actionId`. */
function alertWith(needle: string, actionId: string, except: string[] = []): Promise<FakeMessage> {
  return h.fake.waitFor(
    () =>
      h.fake
        .topLevel(ADMIN)
        .find(
          (m) =>
            !except.includes(m.ts) &&
            (latest(m)?.text ?? "").includes(needle) &&
            json(latest(m)?.blocks).includes(actionId),
        ),
    { timeoutMs: 20_000, what: `an admin alert about ${needle} with ${actionId}` },
  );
}

/** Orphans of a new correlation id, reported by the sweep, attached by the admin to `order`. */
async function attached(order: Order, events: object[], beforeAttach?: () => Promise<unknown>) {
  const correlationId = (events[0] as { correlationId: string }).correlationId;
  for (const event of events) expect((await deliver(webhookUrl, event)).status).toBe(202);
  await beforeAttach?.();
  await createOrphanSweeper({
    store: h.store,
    jobs: h.jobs,
    orphanAfterMs: 0,
    alertAdmins: (alert) => h.slack.notifier.alertAdmins(alert),
  }).runOnce();
  const alert = await alertWith(correlationId, "attention_attach_orphans");
  const admin = h.user(ADMIN_USER);
  const click = await admin.clickInMessage({
    channel: ADMIN,
    ts: alert.ts,
    actionId: "attention_attach_orphans",
  });
  const modal = await admin.openedModal(click.triggerId);
  const submitted = await admin.submit(modal.id, { attach_order_number: order.externalDocumentNumber });
  expect(submitted.outcome.outcome).toBe("closed");
  await h.fake.waitFor(
    () => {
      const m = latest(h.fake.message(ADMIN, alert.ts));
      return m?.text.includes("Attached to order") && json(m.blocks).includes("attention_detach_orphans")
        ? m
        : undefined;
    },
    { what: "the alert rewritten as attached, with Detach" },
  );
  const { rows } = await h.store.query("SELECT id FROM attention_items WHERE subject = $1", [correlationId]);
  return { alert, correlationId, itemId: String(rows[0]?.id) };
}

describe("Detach on an attach's alert", () => {
  it("undoes an attach to an order with its own correlation id, once, for admins only; the updates are orphans again with a new alert, and the thread says so", async () => {
    const wrong = await placedOrder("DET-101");
    const unknown = randomUUID();
    const orphans = [statusEvent(unknown, "validated", at(6000)), shippingEvent(unknown, at(5000))];
    const { alert, itemId } = await attached(wrong, orphans);
    await until(
      () => replies(wrong),
      (r) => r.length === 2,
      "the two attached updates in DET-101's thread",
    );
    expect(await listOrderAliases(h.store, wrong.id)).toEqual([unknown]);

    // Not an admin: told who may, nothing changes.
    let since = answers().length;
    await h
      .user(OUTSIDER)
      .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_detach_orphans" });
    await answered("Only Order Desk admins", since);
    expect((await getAttention(h.store, itemId))?.detachedAt).toBeNull();
    expect(await listOrderAliases(h.store, wrong.id)).toEqual([unknown]);

    // Two admins at once: one detach.
    since = answers().length;
    const clicks = await Promise.all(
      [ADMIN_USER, MANAGER].map((user) =>
        h.user(user).clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_detach_orphans" }),
      ),
    );
    for (const click of clicks) expect(click.response.status).toBe(200);
    // Decided before the ack: in the database when both acks are back.
    const item = await getAttention(h.store, itemId);
    expect(item?.detachedBy).toMatch(/^(U0ADMIN01|U0MANAGER)$/);
    expect(item?.detachDetail).toMatchObject({ events: 2, posted: 2, correlation: "alias" });
    expect(await listOrderAliases(h.store, wrong.id)).toEqual([]);
    for (const e of orphans) expect((await getEvent(h.store, e.id))?.orderId).toBeNull();
    expect((await h.order(wrong.id)).correlationId).toBe(wrong.correlationId);
    await answered("detached by", since);
    await answered("already handled", since);
    // Its Slack side is queued with it: the attach's alert rewrite and the new item's alert, one job each.
    const queued = await h.store.query(
      `SELECT data->>'itemId' AS item FROM ${h.jobs.schema}.job WHERE name = 'attention-outcome' AND data->>'itemId' = ANY($1)`,
      [[itemId, String(item?.detachDetail?.reopenedItemId)]],
    );
    expect(queued.rows.map((r) => r.item).sort()).toEqual(
      [itemId, itemId, String(item?.detachDetail?.reopenedItemId)].sort(),
    );

    // The attach's alert: who attached, who detached, no button left.
    const rewritten = await h.fake.waitFor(
      () => {
        const m = h.fake.message(ADMIN, alert.ts);
        return (latest(m)?.text ?? "").includes("detached by") ? m : undefined;
      },
      { what: "the attach's alert rewritten" },
    );
    expect(latest(rewritten)?.text).toContain(
      `Attached to order ${wrong.externalDocumentNumber} by <@${ADMIN_USER}>`,
    );
    expect(latest(rewritten)?.text).toContain(`detached by <@${item?.detachedBy}>`);
    expect(json(latest(rewritten)?.blocks)).not.toContain('"type":"button"');

    // A new orphan alert for them, with Attach and Ignore.
    const again = await alertWith(unknown, "attention_attach_orphans", [alert.ts]);
    expect(latest(again)?.text).toContain(`detached from order ${wrong.externalDocumentNumber}`);
    expect(json(latest(again)?.blocks)).toContain("attention_ignore_orphans");

    // The replies stay (Slack history), and one note says they were detached.
    const thread = await until(
      () => replies(wrong),
      (r) => r.length === 3,
      "the note in DET-101's thread",
    );
    expect(thread[2]?.text).toContain("2 supplier updates posted in this thread");
    expect(thread[2]?.text).toContain("detached by");

    // A Detach naming an unknown item, or an item that is no attach, changes nothing.
    since = answers().length;
    for (const value of [randomUUID(), String(item?.detachDetail?.reopenedItemId)]) {
      const forged = await h.requests.blockActions({
        userId: ADMIN_USER,
        triggerId: h.fake.issueTriggerId(ADMIN_USER),
        message: { channelId: ADMIN, message: { ts: alert.ts, text: "" } },
        responseUrl: h.fake.responseUrl(),
        actions: [
          { type: "button", action_id: "attention_detach_orphans", block_id: "attention_actions:x", value },
        ],
      });
      expect(forged.status).toBe(200);
    }
    await answered("not known to Order Desk", since);
    await answered("does not offer that action", since);
    expect((await getAttention(h.store, String(item?.detachDetail?.reopenedItemId)))?.resolvedAt).toBeNull();

    // Later events of that correlation id are orphans again.
    const later = statusEvent(unknown, "packed", at(1000));
    const answer = await deliver(webhookUrl, later);
    expect(answer.status).toBe(202);
    expect(await answer.json()).toMatchObject({ orderKnown: false });

    // Attached to the right order, they are all posted there, once each, in order.
    const right = await placedOrder("DET-102");
    const admin = h.user(ADMIN_USER);
    const click = await admin.clickInMessage({
      channel: ADMIN,
      ts: again.ts,
      actionId: "attention_attach_orphans",
    });
    const modal = await admin.openedModal(click.triggerId);
    expect(
      (await admin.submit(modal.id, { attach_order_number: right.externalDocumentNumber })).outcome.outcome,
    ).toBe("closed");
    const posted = await until(
      () => listEventsForOrder(h.store, right.id),
      (events) => events.length === 3 && events.every((e) => e.replyTs !== null),
      "the three updates posted in DET-102's thread",
    );
    expect(posted.map((e) => e.id)).toEqual([...orphans, later].map((e) => e.id));
    expect(replies(right)).toHaveLength(3);
    expect(replies(wrong)).toHaveLength(3);
    expect(h.fake.calls("chat.update").filter((c) => c.args.ts === alert.ts)).toHaveLength(2);
  }, 90_000);

  it("gives an order whose placement answer was lost its correlation id back (none), and keeps the updates that name its number", async () => {
    const order = await placedOrder("DET-103");
    const unknown = randomUUID();
    const named = statusEvent(unknown, "validated", at(6000), {
      externalDocumentNumber: order.externalDocumentNumber,
    });
    const other = statusEvent(unknown, "in_fulfilment", at(5000));
    // As if the placement's answer had been lost: the order has no correlation id when they are attached.
    const { alert, itemId } = await attached(order, [named, other], () =>
      h.store.query("UPDATE orders SET correlation_id = NULL WHERE id = $1", [order.id]),
    );
    expect((await h.order(order.id)).correlationId).toBe(unknown);
    expect((await getAttention(h.store, itemId))?.resolutionDetail).toMatchObject({ correlation: "own" });

    await h
      .user(ADMIN_USER)
      .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_detach_orphans" });
    expect((await h.order(order.id)).correlationId).toBeNull();
    expect((await getEvent(h.store, named.id))?.orderId).toBe(order.id);
    expect((await getEvent(h.store, other.id))?.orderId).toBeNull();
    expect((await getAttention(h.store, itemId))?.detachDetail).toMatchObject({
      events: 1,
      correlation: "own",
    });
    await alertWith(`1 supplier update for correlation id ${unknown}`, "attention_attach_orphans", [
      alert.ts,
    ]);
  }, 90_000);

  it("tells the admin a Detach that could not be decided in time was not recorded, and changes nothing", async () => {
    const order = await placedOrder("DET-104");
    const unknown = randomUUID();
    const { alert, itemId } = await attached(order, [statusEvent(unknown, "validated", at(3000))]);
    const since = answers().length;
    await h.store.transaction(async (tx) => {
      await tx.query("SELECT id FROM attention_items WHERE id = $1 FOR UPDATE", [itemId]);
      const click = await h
        .user(ADMIN_USER)
        .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_detach_orphans" });
      expect(click.response.status).toBe(200);
    });
    expect(await answered("not recorded", since)).toContain("Click the button again");
    expect((await getAttention(h.store, itemId))?.detachedAt).toBeNull();
    expect(await listOrderAliases(h.store, order.id)).toEqual([unknown]);
  }, 60_000);
});
