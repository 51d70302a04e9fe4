/**
 * A click that changes state is in the database when Slack gets its ack (issue #35, item 2): Approve and the admin
 * buttons are decided before the ack, within a bound well inside Slack's 3 s; a click that cannot be decided in
 * time is rolled back and its clicker told it was not recorded, never dropped without a word. Over the real wire:
 * signed HTTP requests and Socket Mode envelopes, the fake Slack, the store of the run (PGlite, or PostgreSQL with
 * DATABASE_URL).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { getAttention } from "../../src/store/repositories/attention.ts";
import type { FakeMessage } from "../../tools/fake-slack/index.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { orphanEventsAlert } from "./support/alerts.ts";
import { approvalConfig, approvalDmFor, clickApproval, orderFor } from "./support/approvals.ts";
import { ADMIN, type Harness, MANAGER, startHarness, TRANSPORTS } from "./support/harness.ts";

const ADMIN_USER = "U0ADMIN01";

describe.each(TRANSPORTS)("state-changing clicks over %s", (transport) => {
  let supplier: StubSupplier;
  let h: Harness;

  beforeAll(async () => {
    supplier = await startStubSupplier([success(), success(), success(), success()]);
    h = await startHarness({
      transport,
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config: approvalConfig([{ deliveryAt: "Home" }]),
      users: [{ id: ADMIN_USER, name: "ada", realName: "Ada Admin" }],
      customize: (config) => {
        config.admins = [ADMIN_USER];
      },
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  const answers = () => h.fake.responses().map((r) => JSON.stringify(r.body));
  const answered = (words: string, since: number) =>
    h.fake.waitFor(
      () =>
        answers()
          .slice(since)
          .find((a) => a.includes(words)),
      {
        timeoutMs: 10_000,
        what: `an answer saying "${words}"`,
      },
    );

  async function waitingOrder(ticket: string) {
    const order = await orderFor(h, ticket);
    expect(order.status).toBe("awaiting_approval");
    const dm = await h.fake.waitFor(() => approvalDmFor(h, MANAGER, ticket), {
      what: `the manager's DM for ${ticket}`,
    });
    return { order, dm };
  }

  async function orphanAlert(): Promise<{ alert: FakeMessage; itemId: string }> {
    const correlationId = randomUUID();
    await h.slack.notifier.alertAdmins(orphanEventsAlert(correlationId));
    const alert = await h.fake.waitFor(
      () => h.fake.topLevel(ADMIN).find((m) => m.text.includes(correlationId)),
      { what: "the orphan alert" },
    );
    const { rows } = await h.store.query("SELECT id FROM attention_items WHERE subject = $1", [
      correlationId,
    ]);
    return { alert, itemId: String(rows[0]?.id) };
  }

  it("records an Approve before its ack: the decision and its jobs are in the database when the ack returns", async () => {
    const { order, dm } = await waitingOrder("DUR-1");
    const click = await clickApproval(h, MANAGER, dm, "approve_order");
    expect(click.response.status).toBe(200);
    // Read at the ack, before anything else: the decision is already committed.
    const now = await h.order(order.id);
    expect(now.status).not.toBe("awaiting_approval");
    expect(now.approval?.decidedBy).toBe(MANAGER);
    const placed = await h.waitForOrder((o) => o.id === order.id && o.status === "received", "DUR-1 placed");
    expect(placed.approval?.decidedBy).toBe(MANAGER);
  });

  it("records an admin's Ignore before its ack, with the alert's rewrite queued in the same transaction", async () => {
    const { alert, itemId } = await orphanAlert();
    const click = await h
      .user(ADMIN_USER)
      .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_ignore_orphans" });
    expect(click.response.status).toBe(200);
    const item = await getAttention(h.store, itemId);
    expect(item).toMatchObject({ resolution: "ignored", resolvedBy: ADMIN_USER });
    await h.fake.waitFor(
      () =>
        h.fake.message(ADMIN, alert.ts)?.versions.at(-1)?.text.includes("Ignored by") ? true : undefined,
      { what: "the alert rewritten by its job" },
    );
    const rewrites = h.fake
      .calls("chat.update")
      .filter((c) => c.args.channel === ADMIN && c.args.ts === alert.ts);
    expect(rewrites).toHaveLength(1);
    expect(
      (
        await h.store.query(`SELECT count(*)::int AS n FROM ${h.jobs.schema}.job WHERE name = $1`, [
          QUEUES.attentionOutcome,
        ])
      ).rows[0]?.n,
    ).toBeGreaterThanOrEqual(1);
  });

  it("tells the approver an Approve that could not be decided in time was not recorded, and records nothing", async () => {
    const { order, dm } = await waitingOrder("DUR-2");
    const since = answers().length;
    // The order's row is held by another transaction for longer than the click's bound (2 s).
    let clicked: Awaited<ReturnType<typeof clickApproval>> | undefined;
    await h.store.transaction(async (tx) => {
      await tx.query("SELECT id FROM orders WHERE id = $1 FOR UPDATE", [order.id]);
      clicked = await clickApproval(h, MANAGER, dm, "approve_order");
    });
    expect(clicked?.response.status).toBe(200);
    const told = await answered("not recorded", since);
    expect(told).toContain("Click Approve again");
    // The late decision rolled back: the next click decides it, and is not told it was already approved.
    await clickApproval(h, MANAGER, dm, "approve_order");
    const placed = await h.waitForOrder((o) => o.id === order.id && o.status === "received", "DUR-2 placed");
    expect(placed.approval?.decidedBy).toBe(MANAGER);
    expect(
      answers()
        .slice(since)
        .some((a) => a.includes("already approved")),
    ).toBe(false);
    expect(supplier.requests.filter((r) => JSON.parse(r.body).customerReference === "DUR-2")).toHaveLength(1);
  });

  it("tells the admin a button that could not be decided in time was not recorded, and leaves the alert open", async () => {
    const { alert, itemId } = await orphanAlert();
    const since = answers().length;
    await h.store.transaction(async (tx) => {
      await tx.query("SELECT id FROM attention_items WHERE id = $1 FOR UPDATE", [itemId]);
      const click = await h
        .user(ADMIN_USER)
        .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_ignore_orphans" });
      expect(click.response.status).toBe(200);
    });
    await answered("not recorded", since);
    // The click's late transaction rolls back once the row is free: the item stays open, the alert untouched.
    const again = await h
      .user(ADMIN_USER)
      .clickInMessage({ channel: ADMIN, ts: alert.ts, actionId: "attention_ignore_orphans" });
    expect(again.response.status).toBe(200);
    expect(await getAttention(h.store, itemId)).toMatchObject({ resolution: "ignored" });
    await answered("Ignored by", since);
    expect(
      answers()
        .slice(since)
        .some((a) => a.includes("already handled")),
    ).toBe(false);
  });
});
