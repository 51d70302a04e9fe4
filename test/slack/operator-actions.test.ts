/**
 * Operators fix things from Slack (issue #26): the admin alerts for a placement that failed for good, for updates
 * that could not be posted and for orphan events carry buttons; App Home shows admins "Needs attention". Over the
 * real wire, HTTP (signed requests) and Socket Mode (envelopes): the fake Slack Web API, the sandbox supplier,
 * signed webhook deliveries, the store of the run (PGlite, or PostgreSQL with DATABASE_URL).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { QUEUES } from "../../src/jobs/queues.ts";
import type { Order } from "../../src/orders/model/order.ts";
import { postUnsentAlerts } from "../../src/orders/operations/report.ts";
import { postUpdateJobId } from "../../src/orders/updates/enqueue.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { getAttention, listOpenAttention, openAttention } from "../../src/store/repositories/attention.ts";
import { listEventsForOrder } from "../../src/store/repositories/events.ts";
import { listOrderAliases } from "../../src/store/repositories/order-aliases.ts";
import { createOrphanSweeper } from "../../src/webhooks/orphans.ts";
import { webhookRoute } from "../../src/webhooks/receiver.ts";
import type { FakeMessage } from "../../tools/fake-slack/index.ts";
import { deliver, SECRET, shippingEvent, statusEvent, until } from "../webhooks/support.ts";
import { orphanEventsAlert } from "./support/alerts.ts";
import {
  ADMIN,
  AGENT,
  type Harness,
  HELPDESK,
  MANAGER,
  OUTSIDER,
  startHarness,
  TRANSPORTS,
  VALID_FORM,
} from "./support/harness.ts";

/** Listed by id in `admins`; MANAGER is an admin as a member of `adminGroups` (S0HELPDESK). */
const ADMIN_USER = "U0ADMIN01";

let sandbox: SandboxHandle;
let h: Harness;
let webhooks: HttpServer;
let webhookUrl: string;

const json = (value: unknown) => JSON.stringify(value);
const latest = (m: FakeMessage) => m.versions.at(-1);

async function placeOrder(ticket: string): Promise<void> {
  const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
  const view = await h.agent.openedModal(triggerId);
  const submitted = await h.agent.submit(view.id, { ...VALID_FORM, ticket, profile: "Acme EU" });
  expect(submitted.outcome.outcome).toBe("closed");
}

/** The admin channel's alert whose text has `needle` and which carries the button `actionId`. */
function alertWith(needle: string, actionId: string): Promise<FakeMessage> {
  return h.fake.waitFor(
    () =>
      h.fake
        .topLevel(ADMIN)
        .find((m) => (latest(m)?.text ?? "").includes(needle) && json(latest(m)?.blocks).includes(actionId)),
    { timeoutMs: 20_000, what: `an admin alert about ${needle} with ${actionId}` },
  );
}

/** The admin clicks Attach to order… on the alert; returns the modal Slack opened for them. */
async function openAttachModal(alert: FakeMessage) {
  const admin = h.user(ADMIN_USER);
  const click = await admin.clickInMessage({
    channel: ADMIN,
    ts: alert.ts,
    actionId: "attention_attach_orphans",
  });
  return { admin, modal: await admin.openedModal(click.triggerId) };
}

function buttonValue(message: FakeMessage, actionId: string): string {
  const blocks = latest(message)?.blocks as { elements?: { action_id?: string; value?: string }[] }[];
  for (const block of blocks) {
    const button = block.elements?.find((e) => e.action_id === actionId);
    if (button?.value) return button.value;
  }
  throw new Error(`no ${actionId} button`);
}

/** Everything the app answered through response URLs and DMs, as text. */
function answers(): string[] {
  return h.fake.responses().map((r) => String((r.body as { text?: unknown }).text ?? ""));
}

/** Waits for `count` answers with `needle` among those after the first `since`. */
async function answered(needle: string, count = 1, since = 0): Promise<string[]> {
  return h.fake.waitFor(
    () => {
      const found = answers()
        .slice(since)
        .filter((t) => t.includes(needle));
      return found.length >= count ? found : undefined;
    },
    { timeoutMs: 10_000, what: `${count} answer(s) with "${needle}"` },
  );
}

const updatesOf = (channel: string, ts: string) =>
  h.fake.calls("chat.update").filter((c) => c.args.channel === channel && c.args.ts === ts);

/** The order's threaded replies (not the order message itself), oldest first. */
function replies(order: Order): FakeMessage[] {
  const thread = h.fake.thread(order.slackChannelId ?? "", order.slackThreadTs ?? order.slackMessageTs ?? "");
  return thread.filter((m) => m.ts !== order.slackMessageTs);
}

/** The click Slack re-sends later (a replay), from the alert as first posted, buttons and all. */
async function replayClick(userId: string, alert: FakeMessage, actionId: string, value: string) {
  const first = alert.versions[0];
  return h.requests.blockActions({
    userId,
    triggerId: h.fake.issueTriggerId(userId),
    message: {
      channelId: ADMIN,
      message: {
        type: "message",
        ts: alert.ts,
        user: alert.user,
        text: first?.text ?? "",
        blocks: first?.blocks,
      },
    },
    responseUrl: h.fake.responseUrl(),
    actions: [{ type: "button", action_id: actionId, block_id: `attention_actions:${value}`, value }],
  });
}

async function sandboxOrdersNumbered(edn: string): Promise<number> {
  return (await sandbox.orders({ limit: 1000 })).filter((o) => o.externalDocumentNumber === edn).length;
}

async function runOrphanSweep(): Promise<void> {
  const sweeper = createOrphanSweeper({
    store: h.store,
    jobs: h.jobs,
    orphanAfterMs: 0,
    alertAdmins: (alert) => h.slack.notifier.alertAdmins(alert),
  });
  await sweeper.runOnce();
}

describe.each(TRANSPORTS)("operator actions over %s", (transport) => {
  beforeAll(async () => {
    const key = generateTestKey();
    sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: `operator-actions-${transport}` });
    h = await startHarness({
      transport,
      supplierUrl: sandbox.url,
      apiKey: key,
      retryLimit: 1,
      retryDelaySeconds: 1,
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

  describe("Retry now on a placement that failed for good", () => {
    it("refuses non-admins, retries once for two admins clicking together, and threads the placed order's updates", async () => {
      sandbox.setFaults({ outage: true });
      await placeOrder("OPS-1");
      const failed = await h.waitForOrder(
        (o) => o.customerReference === "OPS-1" && o.status === "failed",
        "OPS-1 failed for good",
        30_000,
      );
      expect(failed.failure).toMatchObject({ kind: "failed", reason: "retries_exhausted" });
      const alert = await alertWith(failed.externalDocumentNumber, "attention_retry_order");
      expect(json(latest(alert)?.blocks)).toContain("attention_mark_handled");
      const itemId = buttonValue(alert, "attention_retry_order");

      // Not an admin: told so, nothing changes.
      await h
        .user(OUTSIDER)
        .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_retry_order" });
      const [refusal] = await answered("Only Order Desk admins");
      // Who may, by name (mentions in an ephemeral notify nobody).
      expect(refusal).toContain(`<@${ADMIN_USER}>`);
      expect(refusal).toContain("<!subteam^S0HELPDESK>");
      sandbox.setFaults({ outage: false });
      expect((await h.order(failed.id)).status).toBe("failed");
      expect((await getAttention(h.store, itemId))?.resolvedAt).toBeNull();
      const failedJobsOfOrder = async () =>
        (await h.jobs.listFailed({ queue: QUEUES.placeOrder, limit: 1000 })).filter(
          (j) => (j.data as { orderId?: string }).orderId === failed.id,
        );
      // The order is marked failed by the last attempt, whose job is settled as failed just after.
      await vi.waitFor(async () => expect(await failedJobsOfOrder()).toHaveLength(1), {
        timeout: 10_000,
        interval: 50,
      });

      // The cause is fixed; two admins click at the same time.
      await Promise.all([
        h
          .user(ADMIN_USER)
          .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_retry_order" }),
        h.user(MANAGER).clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_retry_order" }),
      ]);
      const placed = await h.waitForOrder(
        (o) => o.id === failed.id && o.correlationId !== null && o.slackMessageTs !== null,
        "OPS-1 placed by the retry",
        20_000,
      );
      await answered("Retried by");
      await answered("already handled");
      // The failed job is settled by the retry: doctor and `jobs list --failed` no longer count it.
      expect(await failedJobsOfOrder()).toEqual([]);
      const item = await getAttention(h.store, itemId);
      expect(item).toMatchObject({ resolution: "retried" });
      expect([ADMIN_USER, MANAGER]).toContain(item?.resolvedBy);

      // A replayed click, later (Slack re-sends the alert as first posted): nothing more.
      const replayed = await replayClick(ADMIN_USER, alert, "attention_retry_order", itemId);
      expect(replayed.status).toBe(200);
      await answered("already handled", 2);
      expect(await sandboxOrdersNumbered(placed.externalDocumentNumber)).toBe(1);

      // The alert says who did what, once, and offers no button any more.
      const shown = await h.fake.waitFor(() => {
        const m = h.fake.message(ADMIN, alert.ts);
        return m && (latest(m)?.text ?? "").includes("Retried by") ? m : undefined;
      });
      expect(json(latest(shown)?.blocks)).not.toContain("attention_retry_order");
      expect(json(latest(shown)?.blocks)).toContain(`<@${item?.resolvedBy}>`);
      expect(updatesOf(ADMIN, alert.ts)).toHaveLength(1);

      // The supplier's updates follow in the order's thread.
      const correlationId = placed.correlationId ?? "";
      const base = Date.now();
      const validated = statusEvent(correlationId, "validated", new Date(base - 3000).toISOString());
      const shipped = shippingEvent(correlationId, new Date(base - 1000).toISOString());
      expect((await deliver(webhookUrl, validated)).status).toBeLessThan(300);
      expect((await deliver(webhookUrl, shipped)).status).toBeLessThan(300);
      const thread = await h.fake.waitFor(() => (replies(placed).length >= 2 ? replies(placed) : undefined), {
        timeoutMs: 15_000,
        what: "OPS-1's two updates in its thread",
      });
      expect(thread).toHaveLength(2);
      expect(thread[1]?.text).toContain("JD014600003SE");
    });
  });

  describe("Retry posting for updates that could not be posted", () => {
    it("posts the waiting updates in order, once, after the channel is back", async () => {
      await placeOrder("OPS-2");
      const order = await h.waitForOrder(
        (o) => o.customerReference === "OPS-2" && o.correlationId !== null && o.slackMessageTs !== null,
        "OPS-2 placed",
        20_000,
      );
      h.fake.setArchived(HELPDESK, true);
      const base = Date.now();
      const correlationId = order.correlationId ?? "";
      const first = statusEvent(correlationId, "validated", new Date(base - 3000).toISOString());
      const second = shippingEvent(correlationId, new Date(base - 1000).toISOString());
      // Delivered newest first: they still go out oldest first.
      await deliver(webhookUrl, second);
      await deliver(webhookUrl, first);
      const alert = await alertWith(order.externalDocumentNumber, "attention_retry_posting");
      expect(replies(order)).toHaveLength(0);
      // Each event has a posting job of its own; one that had not run yet when the alert went out would post both
      // updates by itself once the channel is back, and the click would rightly find nothing to retry.
      const events = await listEventsForOrder(h.store, order.id);
      expect(events).toHaveLength(2);
      await until(
        () => Promise.all(events.map((e) => h.jobs.getJob(QUEUES.postUpdate, postUpdateJobId(e.id)))),
        (jobs) => jobs.every((j) => j === null || j.state === "failed" || j.state === "completed"),
        "OPS-2's posting jobs done with the archived channel",
      );
      expect(replies(order)).toHaveLength(0);

      h.fake.setArchived(HELPDESK, false);
      const mark = answers().length;
      // A double click: one new posting run.
      await Promise.all([
        h
          .user(ADMIN_USER)
          .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_retry_posting" }),
        h
          .user(ADMIN_USER)
          .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_retry_posting" }),
      ]);
      await until(
        () => listEventsForOrder(h.store, order.id),
        (events) => events.length === 2 && events.every((e) => e.postedAt !== null),
        "OPS-2's two updates posted",
      );
      const thread = replies(order);
      expect(thread).toHaveLength(2);
      expect(thread[0]?.text).not.toContain("JD014600003SE");
      expect(thread[1]?.text).toContain("JD014600003SE");
      await answered("Posting retried by", 1, mark);
      expect(updatesOf(ADMIN, alert.ts)).toHaveLength(1);
      expect(latest(h.fake.message(ADMIN, alert.ts) as FakeMessage)?.text).toContain("Posting retried by");
    });
  });

  describe("orphan events", () => {
    it("Attach to order… asks for the order's number and posts the waiting events in its thread, in order", async () => {
      await placeOrder("OPS-3");
      const order = await h.waitForOrder(
        (o) => o.customerReference === "OPS-3" && o.correlationId !== null && o.slackMessageTs !== null,
        "OPS-3 placed",
        20_000,
      );
      const unknown = randomUUID();
      const base = Date.now();
      const events = [
        statusEvent(unknown, "validated", new Date(base - 5000).toISOString()),
        statusEvent(unknown, "in_fulfilment", new Date(base - 4000).toISOString()),
        shippingEvent(unknown, new Date(base - 3000).toISOString()),
      ];
      for (const event of [events[2], events[0], events[1]]) await deliver(webhookUrl, event as object);
      await runOrphanSweep();
      const alert = await alertWith(unknown, "attention_attach_orphans");

      // Not an admin: no modal, told why.
      const mark = answers().length;
      const refused = await h.agent.clickInMessage({
        channel: ADMIN,
        ts: alert.ts,
        actionId: "attention_attach_orphans",
      });
      await answered("Only Order Desk admins", 1, mark);
      expect(h.fake.views({ openedWithTrigger: refused.triggerId })).toHaveLength(0);

      const { admin, modal } = await openAttachModal(alert);
      const wrong = await admin.submit(modal.id, { attach_order_number: "NO-SUCH-ORDER" });
      expect(wrong.outcome).toMatchObject({ outcome: "errors" });
      expect(json(wrong.response.body)).toContain("No order has the number NO-SUCH-ORDER");
      const right = await admin.submit(modal.id, { attach_order_number: order.externalDocumentNumber });
      expect(right.outcome.outcome).toBe("closed");

      const thread = await h.fake.waitFor(() => (replies(order).length >= 3 ? replies(order) : undefined), {
        timeoutMs: 15_000,
        what: "the three attached events in OPS-3's thread",
      });
      expect(thread).toHaveLength(3);
      const posted = await until(
        () => listEventsForOrder(h.store, order.id),
        (events) => events.length === 3 && events.every((e) => e.replyTs !== null),
        "the attached events marked posted",
      );
      expect(posted.map((e) => e.id)).toEqual(events.map((e) => e?.id));
      expect(thread.map((m) => m.ts)).toEqual(posted.map((e) => e.replyTs));
      const shown = await h.fake.waitFor(() => {
        const m = h.fake.message(ADMIN, alert.ts);
        return m && (latest(m)?.text ?? "").includes("Attached to order") ? m : undefined;
      });
      expect(latest(shown)?.text).toContain(order.externalDocumentNumber);
      expect(updatesOf(ADMIN, alert.ts)).toHaveLength(1);
    });

    it("after Attach to order… on an order with its own correlation id, later events with the orphans' id follow in its thread, once, in order, with no new alert", async () => {
      await placeOrder("OPS-6");
      const order = await h.waitForOrder(
        (o) => o.customerReference === "OPS-6" && o.correlationId !== null && o.slackMessageTs !== null,
        "OPS-6 placed",
        20_000,
      );
      const own = order.correlationId;
      const unknown = randomUUID();
      const at = (ms: number) => new Date(Date.now() - ms).toISOString();
      const orphans = [
        statusEvent(unknown, "validated", at(6000)),
        statusEvent(unknown, "in_fulfilment", at(5000)),
      ];
      for (const event of orphans) expect((await deliver(webhookUrl, event)).status).toBe(202);
      await runOrphanSweep();
      const alert = await alertWith(unknown, "attention_attach_orphans");

      const { admin, modal } = await openAttachModal(alert);
      const right = await admin.submit(modal.id, { attach_order_number: order.externalDocumentNumber });
      expect(right.outcome.outcome).toBe("closed");
      await h.fake.waitFor(() => (replies(order).length >= 2 ? replies(order) : undefined), {
        timeoutMs: 15_000,
        what: "the two attached events in OPS-6's thread",
      });

      // The supplier goes on with the orphans' correlation id: its events are the order's from the start.
      const later = [statusEvent(unknown, "packed", at(2000)), shippingEvent(unknown, at(1000))];
      for (const event of later) {
        const answer = await deliver(webhookUrl, event);
        expect(answer.status).toBe(200);
        expect(await answer.json()).toMatchObject({ duplicate: false, orderKnown: true });
      }
      // A redelivery is stored once and shown once.
      expect(await (await deliver(webhookUrl, later[1] as object)).json()).toMatchObject({ duplicate: true });
      const posted = await until(
        () => listEventsForOrder(h.store, order.id),
        (events) => events.length === 4 && events.every((e) => e.replyTs !== null),
        "OPS-6's four events posted",
      );
      expect(posted.map((e) => e.id)).toEqual([...orphans, ...later].map((e) => e.id));
      // A sweep after them finds no orphan to report.
      await runOrphanSweep();
      const thread = replies(order);
      expect(thread).toHaveLength(4);
      expect(thread.map((m) => m.ts)).toEqual(posted.map((e) => e.replyTs));
      expect(thread[3]?.text).toContain("JD014600003SE");
      expect(h.fake.topLevel(ADMIN).filter((m) => json(m).includes(unknown))).toHaveLength(1);
      const { rows } = await h.store.query(
        "SELECT resolution FROM attention_items WHERE kind = 'orphan_events' AND subject = $1",
        [unknown],
      );
      expect(rows).toEqual([{ resolution: "attached" }]);
      // The order keeps its own correlation id; the orphans' one is recorded beside it.
      expect((await h.order(order.id)).correlationId).toBe(own);
      expect(await listOrderAliases(h.store, order.id)).toEqual([unknown]);
    });
  });

  describe("App Home for admins", () => {
    it("lists what needs attention, failed orders first then newest, with counts, to admins only, with the same actions", async () => {
      sandbox.setFaults({ outage: true });
      await placeOrder("OPS-4");
      const failed = await h.waitForOrder(
        (o) => o.customerReference === "OPS-4" && o.status === "failed",
        "OPS-4 failed for good",
        30_000,
      );
      sandbox.setFaults({ outage: false });
      const failedAlert = await alertWith(failed.externalDocumentNumber, "attention_retry_order");
      const unknown = randomUUID();
      await deliver(webhookUrl, statusEvent(unknown, "validated", new Date().toISOString()));
      await runOrphanSweep();
      const orphanAlert = await alertWith(unknown, "attention_ignore_orphans");
      const orphanItem = buttonValue(orphanAlert, "attention_ignore_orphans");

      await h.requests.appHomeOpened({ userId: AGENT });
      await h.requests.appHomeOpened({ userId: ADMIN_USER });
      const home = await h.fake.waitFor(() => h.fake.homeView(ADMIN_USER));
      const agentHome = await h.fake.waitFor(() => h.fake.homeView(AGENT));
      expect(json(agentHome.definition.blocks)).not.toContain("Needs attention");
      const shown = json(home.definition.blocks);
      // Counted from the store: the other scenarios of this file may leave items open too.
      const open = await listOpenAttention(h.store, 100);
      const total = open.items.length;
      expect(open.counts.failed_order).toBeGreaterThanOrEqual(1);
      expect(open.counts.orphan_events).toBeGreaterThanOrEqual(1);
      expect(shown).toContain(`Needs attention (${total})`);
      expect(shown).toContain(`${open.counts.failed_order} failed order`);
      // Failed orders first (a storm of orphans never pushes one out of sight), then the rest; "My orders" below.
      expect(shown.indexOf(failed.externalDocumentNumber)).toBeLessThan(shown.indexOf(unknown));
      expect(shown.indexOf(unknown)).toBeLessThan(shown.indexOf("My orders"));

      const admin = h.user(ADMIN_USER);
      await admin.clickInView(home.id, {
        actionId: "attention_ignore_orphans",
        blockId: `attention_actions:${orphanItem}`,
      });
      // App Home has no response URL: the answer comes as a DM; the Home and the alert follow.
      await h.fake.waitFor(() => h.fake.dm(ADMIN_USER).find((m) => m.text.includes("Ignored by")));
      await h.fake.waitFor(() => {
        const view = h.fake.homeView(ADMIN_USER);
        return view && json(view.definition.blocks).includes(`Needs attention (${total - 1})`)
          ? view
          : undefined;
      });
      await h.fake.waitFor(() => {
        const m = h.fake.message(ADMIN, orphanAlert.ts);
        return m && (latest(m)?.text ?? "").includes("Ignored by") ? m : undefined;
      });
      expect((await getAttention(h.store, orphanItem))?.resolution).toBe("ignored");
      expect((await listEventsForOrder(h.store, failed.id)).length).toBe(0);

      const mark = answers().length;
      await admin.clickInMessage({ channel: ADMIN, ts: failedAlert.ts, actionId: "attention_mark_handled" });
      await answered("Marked handled by", 1, mark);
      expect((await h.order(failed.id)).status).toBe("failed");
      await h.requests.appHomeOpened({ userId: ADMIN_USER });
      await h.fake.waitFor(() => {
        const view = h.fake.homeView(ADMIN_USER);
        return view && json(view.definition.blocks).includes("Nothing needs an admin right now")
          ? view
          : undefined;
      });
    });
  });

  describe("an alert that could not be posted", () => {
    it("goes out later, once, with its buttons", async () => {
      const correlationId = randomUUID();
      const alert = orphanEventsAlert(correlationId);
      h.fake.setArchived(ADMIN, true);
      await expect(h.slack.notifier.alertAdmins(alert)).rejects.toThrow();
      // Reported again while the channel is still archived: still one item, still no alert.
      await expect(h.slack.notifier.alertAdmins(alert)).rejects.toThrow();
      h.fake.setArchived(ADMIN, false);
      // Past the grace at once.
      const deps = { store: h.store, alerts: h.slack.context.operators.alerts };
      expect(await postUnsentAlerts(deps, { graceMs: 0 })).toBeGreaterThanOrEqual(1);
      expect(await postUnsentAlerts(deps, { graceMs: 0 })).toBe(0);
      const posted = h.fake.topLevel(ADMIN).filter((m) => m.text.includes(correlationId));
      expect(posted).toHaveLength(1);
      expect(json(posted[0]?.blocks)).toContain("attention_attach_orphans");
      // Reported once more now that it is out: nothing new is posted.
      await h.slack.notifier.alertAdmins(alert);
      expect(h.fake.topLevel(ADMIN).filter((m) => m.text.includes(correlationId))).toHaveLength(1);
    });
  });

  describe("when Slack refuses to update the alert", () => {
    it("acts once, tells the admin, and rewrites the alert once Slack takes it", async () => {
      const correlationId = randomUUID();
      await h.slack.notifier.alertAdmins(orphanEventsAlert(correlationId));
      const alert = await alertWith(correlationId, "attention_ignore_orphans");
      const itemId = buttonValue(alert, "attention_ignore_orphans");
      const mark = answers().length;
      h.fake.failNext("chat.update", "cant_update_message");
      await h
        .user(ADMIN_USER)
        .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_ignore_orphans" });
      await answered("Ignored by", 1, mark);
      expect((await getAttention(h.store, itemId))?.resolution).toBe("ignored");
      // The rewrite is a job of the action: refused once, retried, shown.
      await h.fake.waitFor(
        () =>
          (latest(h.fake.message(ADMIN, alert.ts) as FakeMessage)?.text ?? "").includes("Ignored by")
            ? true
            : undefined,
        { timeoutMs: 20_000, what: "the alert rewritten after Slack refused once" },
      );
    });
  });

  describe("hostile clicks", () => {
    it("answers forged, mismatched and oversized ids without changing anything", async () => {
      await placeOrder("OPS-5");
      const order = await h.waitForOrder(
        (o) => o.customerReference === "OPS-5" && o.slackMessageTs !== null && o.correlationId !== null,
        "OPS-5 placed",
        20_000,
      );
      const unknown = randomUUID();
      await deliver(webhookUrl, statusEvent(unknown, "validated", new Date().toISOString()));
      await runOrphanSweep();
      const alert = await alertWith(unknown, "attention_attach_orphans");
      const itemId = buttonValue(alert, "attention_attach_orphans");
      const admin = h.user(ADMIN_USER);
      const mark = answers().length;
      const forged = [randomUUID(), "' OR 1=1 --", "x".repeat(5000), ""];
      for (const value of forged) {
        await admin.clickInMessage({
          channel: ADMIN,
          ts: alert.ts,
          actionId: "attention_ignore_orphans",
          value,
        });
      }
      await answered("not known to Order Desk", forged.length, mark);
      // A real item's id on a button its kind does not offer: a failed order's item on Ignore.
      const { item: other } = await openAttention(h.store, {
        id: randomUUID(),
        kind: "failed_order",
        subject: order.id,
        alert: { title: "Forged", text: "for the test" },
      });
      await admin.clickInMessage({
        channel: ADMIN,
        ts: alert.ts,
        actionId: "attention_ignore_orphans",
        value: other.id,
      });
      await answered("does not offer that action", 1, mark);
      // The attach modal an admin opened, submitted by someone else (a forged view_submission): refused.
      const { modal } = await openAttachModal(alert);
      h.fake.fillView(modal.id, { attach_order_number: order.externalDocumentNumber });
      const forgedSubmit = await h.requests.viewSubmission({
        userId: OUTSIDER,
        view: h.fake.viewPayload(modal.id),
        triggerId: h.fake.issueTriggerId(OUTSIDER),
      });
      expect(json(forgedSubmit.body)).toContain("Only Order Desk admins");
      // …and with the id of another kind's item in its metadata, by the admin: refused too.
      const otherKind = await h.requests.viewSubmission({
        userId: ADMIN_USER,
        view: { ...h.fake.viewPayload(modal.id), private_metadata: other.id },
        triggerId: h.fake.issueTriggerId(ADMIN_USER),
      });
      expect(json(otherKind.body)).toContain("does not offer that action");
      expect((await listEventsForOrder(h.store, order.id)).some((e) => e.correlationId === unknown)).toBe(
        false,
      );
      expect((await getAttention(h.store, other.id))?.resolvedAt).toBeNull();
      expect((await getAttention(h.store, itemId))?.resolvedAt).toBeNull();
      expect((await h.order(order.id)).status).not.toBe("queued");
      expect(updatesOf(ADMIN, alert.ts)).toHaveLength(0);
      // Only people are mentioned (the requester, the admins, the admins' group): no @channel or foreign link.
      expect(
        h.fake.injections({
          allowUsers: [AGENT, ADMIN_USER, MANAGER],
          // The refusal to a non-admin names the admin group (an ephemeral: nobody is notified).
          allowUsergroups: ["S0HELPDESK"],
          allowLinkHosts: ["track.example.com"],
        }),
      ).toEqual([]);
    });
  });
});
