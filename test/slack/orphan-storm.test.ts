/**
 * An orphan-event storm (hundreds of signed events for correlation ids no order has) is one admin alert, not one per
 * id: each sweep sends at most one, a summary with the count, the first ids and "Ignore all", rewritten as the storm
 * goes on; App Home's "Needs attention" keeps a real failed order in sight, counts every kind and offers "See all".
 * Over the real wire: signed webhook deliveries, the fake Slack Web API, the sandbox supplier, the run's store.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import type { Order } from "../../src/orders/model/order.ts";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { listOpenAttention } from "../../src/store/repositories/attention.ts";
import { createOrphanSweeper } from "../../src/webhooks/orphans.ts";
import { webhookRoute } from "../../src/webhooks/receiver.ts";
import type { FakeMessage } from "../../tools/fake-slack/index.ts";
import { deliver, SECRET, statusEvent } from "../webhooks/support.ts";
import { ADMIN, type Harness, HELPDESK, startHarness, VALID_FORM } from "./support/harness.ts";

const ADMIN_USER = "U0ADMIN01";
const STORM = 220;

let sandbox: SandboxHandle;
let h: Harness;
let webhooks: HttpServer;
let webhookUrl: string;
let failed: Order;

const json = (value: unknown) => JSON.stringify(value);
const latest = (m: FakeMessage) => m.versions.at(-1);

beforeAll(async () => {
  const key = generateTestKey();
  sandbox = await startSandbox({ apiKeys: [key], speed: 1000, seed: "orphan-storm" });
  h = await startHarness({
    supplierUrl: sandbox.url,
    apiKey: key,
    retryLimit: 1,
    retryDelaySeconds: 1,
    users: [{ id: ADMIN_USER, name: "ada", realName: "Ada Admin" }],
    customize: (config) => {
      config.admins = [ADMIN_USER];
    },
  });
  webhooks = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    routes: [webhookRoute({ store: h.store, jobs: h.jobs, getSecrets: () => [SECRET], settleMs: 0 })],
  });
  webhookUrl = `${webhooks.url}/webhooks/supplier`;

  // A real failure an admin must see: the supplier is down until the placement gives up.
  sandbox.setFaults({ outage: true });
  const { triggerId } = await h.agent.runCommand({ channel: HELPDESK, command: "/order", text: "STORM-1" });
  const view = await h.agent.openedModal(triggerId);
  await h.agent.submit(view.id, { ...VALID_FORM, ticket: "STORM-1", profile: "Acme EU" });
  failed = await h.waitForOrder(
    (o) => o.customerReference === "STORM-1" && o.status === "failed",
    "STORM-1 failed for good",
    30_000,
  );
  sandbox.setFaults({ outage: false });
  await h.fake.waitFor(
    () => h.fake.topLevel(ADMIN).find((m) => (latest(m)?.text ?? "").includes(failed.externalDocumentNumber)),
    { what: "the failed order's alert", timeoutMs: 20_000 },
  );
});

afterAll(async () => {
  await webhooks?.close({ graceMs: 500 });
  await h?.close();
  await sandbox?.close();
});

describe("an orphan-event storm", () => {
  it("makes at most one admin alert per sweep, keeps the failed order in Needs attention, and is closed by Ignore all", async () => {
    const sweeper = createOrphanSweeper({
      store: h.store,
      jobs: h.jobs,
      orphanAfterMs: 0,
      alertAdmins: (alert) => h.slack.notifier.alertAdmins(alert),
    });
    const ids = Array.from({ length: STORM }, () => randomUUID());
    const at = new Date().toISOString();
    for (let i = 0; i < ids.length; i += 20) {
      const batch = ids.slice(i, i + 20);
      const answers = await Promise.all(
        batch.map((id) => deliver(webhookUrl, statusEvent(id, "validated", at))),
      );
      expect(answers.map((r) => r.status)).toEqual(batch.map(() => 202));
    }

    const alertsBefore = h.fake.topLevel(ADMIN).length;
    // A sweep reads at most 100 orphans: three sweeps for the storm, each at most one new alert.
    for (let sweep = 1; sweep <= 3; sweep++) {
      await sweeper.runOnce();
      expect(h.fake.topLevel(ADMIN).length - alertsBefore).toBeLessThanOrEqual(1);
    }
    const newAlerts = h.fake.topLevel(ADMIN).slice(alertsBefore);
    expect(newAlerts).toHaveLength(1);
    const summary = newAlerts[0]!;
    const text = latest(summary)?.text ?? "";
    expect(text).toContain(`${STORM} correlation ids with supplier updates for no known order`);
    expect(ids.filter((id) => text.includes(id))).toHaveLength(5);
    expect(text).toContain(`and ${STORM - 5} more`);
    expect(json(latest(summary)?.blocks)).toContain("Ignore all");
    expect(json(latest(summary)?.blocks)).not.toContain("attention_attach_orphans");

    // App Home: the failed order is listed first; every kind is counted; "See all" lists the rest.
    await h.requests.appHomeOpened({ userId: ADMIN_USER });
    const home = await h.fake.waitFor(() => {
      const v = h.fake.homeView(ADMIN_USER);
      return v && json(v.definition.blocks).includes("groups of orphan events") ? v : undefined;
    });
    const shown = json(home.definition.blocks);
    expect(shown).toContain(failed.externalDocumentNumber);
    expect(shown).toContain(`${STORM} groups of orphan events`);
    expect(shown).toContain("1 failed order");
    expect(shown.indexOf(failed.externalDocumentNumber)).toBeLessThan(shown.indexOf("Ignore all"));
    const admin = h.user(ADMIN_USER);
    const click = await admin.clickInView(home.id, { actionId: "attention_see_all" });
    const list = await admin.openedModal(click.triggerId);
    const listed = json(list.definition.blocks);
    expect(listed).toContain(failed.externalDocumentNumber);
    expect(ids.some((id) => listed.includes(id))).toBe(true);
    expect(listed).toContain("more not listed here");

    // Ignore all: the summary and every id it stands for are closed; the failed order stays.
    await admin.clickInMessage({ channel: ADMIN, ts: summary.ts, actionId: "attention_ignore_orphans" });
    await h.fake.waitFor(() => {
      const m = h.fake.message(ADMIN, summary.ts);
      return m && (latest(m)?.text ?? "").includes("Ignored") ? m : undefined;
    });
    expect(latest(h.fake.message(ADMIN, summary.ts)!)?.text).toContain(`${STORM} groups of orphan events`);
    const open = await listOpenAttention(h.store, 100);
    expect(open.counts.orphan_events).toBe(0);
    expect(open.counts.failed_order).toBe(1);
    expect(open.items.map((i) => i.subject)).toEqual([failed.id]);
  });
});
