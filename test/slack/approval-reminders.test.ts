/**
 * The approval's reminder and expiry, as durable jobs due at times taken from the app's (injected) clock when the
 * order was accepted: an order accepted "25 hours ago" has its reminder due now, one accepted "7 days ago" its
 * expiry. One reminder per approver, never repeated when the job runs again, and never lost when Slack refuses it
 * once; the expiry ends the order without any supplier call, the approvers' DMs lose their buttons and the thread
 * tells the requester. After a rejection and Fix and resubmit, the first request's reminder and expiry do nothing:
 * the new request is reminded and expires on its own time. Decisions are counted with the time they took.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { createMetrics } from "../../src/metrics.ts";
import { approvalJobId, approvalRound } from "../../src/orders/approvals/request.ts";
import { listApprovalMessages } from "../../src/store/repositories/approvals.ts";
import { success } from "../supplier/support/stub-supplier.ts";
import {
  approvalConfig,
  approvalDmFor,
  approvalDmsFor,
  approvalDmsTo,
  approvalRequestDone,
  decidedOn,
  fixAndResubmit,
  orderFor,
  rejectInDm,
  reminded,
  remindersUnder,
  runReminderWhenDue,
  runWhenDue,
  texts,
} from "./support/approvals.ts";
import {
  AGENT,
  BOSS,
  HELPDESK,
  MANAGER,
  type StubbedHarness,
  startOnStubSupplier,
} from "./support/harness.ts";

const HOUR = 3_600_000;
const PROFILE = "Acme EU";

/** A value of a Prometheus metric (a counter, or a histogram's `_sum` / `_count`), 0 when never set. */
async function sample(
  metric: { get(): Promise<{ values: { value: number; labels: object; metricName?: string }[] }> },
  labels: Record<string, string>,
  name?: string,
): Promise<number> {
  const { values } = await metric.get();
  const found = values.find(
    (v) =>
      (name === undefined || v.metricName === name) &&
      Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x),
  );
  return found?.value ?? 0;
}

describe("approval reminders and expiry", () => {
  let h: StubbedHarness;
  /** How far the app's clock is behind the real one (the database's, which runs the jobs). */
  let behindMs = 0;
  const metrics = createMetrics({ defaultMetrics: false });

  beforeAll(async () => {
    h = await startOnStubSupplier([success()], {
      config: approvalConfig([{ always: true }], { remindAfterHours: 24, expireAfterDays: 7 }),
      now: () => new Date(Date.now() - behindMs),
      approvalMetrics: metrics.approvals,
    });
  });

  /** The approval counters and the time-to-decision histogram, as they are now. */
  async function counted() {
    const a = metrics.approvals;
    const seconds = "order_desk_approval_decision_seconds";
    return {
      requested: await sample(a.requestedTotal, { profile: PROFILE }),
      rejected: await sample(a.decidedTotal, { outcome: "rejected", profile: PROFILE }),
      expired: await sample(a.decidedTotal, { outcome: "expired", profile: PROFILE }),
      rejectedCount: await sample(a.secondsToDecision, { outcome: "rejected" }, `${seconds}_count`),
      rejectedSeconds: await sample(a.secondsToDecision, { outcome: "rejected" }, `${seconds}_sum`),
      expiredCount: await sample(a.secondsToDecision, { outcome: "expired" }, `${seconds}_count`),
      expiredSeconds: await sample(a.secondsToDecision, { outcome: "expired" }, `${seconds}_sum`),
    };
  }

  afterAll(() => h?.close());

  const remindersIn = (userId: string, ticket: string) => {
    const dm = approvalDmFor(h, userId, ticket);
    return dm ? h.fake.thread(dm.channel, dm.ts).filter((m) => m.text.includes("Reminder")) : [];
  };

  it("reminds each approver once when nobody decided within remindAfterHours", async () => {
    behindMs = 25 * HOUR;
    const order = await orderFor(h, "REM-1");
    behindMs = 0;
    expect(Date.parse(order.approval!.remindAt) - Date.parse(order.approval!.requestedAt)).toBe(24 * HOUR);
    await approvalRequestDone(h, order.id);
    // Due by the queue at once; by the app's clock once it is back to now (a run before that was put off).
    await runReminderWhenDue(h, order.id);
    await h.fake.waitFor(
      () => ([MANAGER, BOSS].every((u) => remindersIn(u, "REM-1").length === 1) ? true : undefined),
      { what: "one reminder in each approver's DM" },
    );
    expect(remindersIn(MANAGER, "REM-1")[0]?.text).toContain("still waits for your approval");

    // The job again (a restart that re-ran it): nobody is reminded twice.
    const again = await h.jobs.send(QUEUES.approvalReminder, { orderId: order.id, round: "" });
    for (;;) {
      const job = await h.jobs.getJob(QUEUES.approvalReminder, again!);
      if (job?.state === "completed") break;
      expect(job?.state).not.toBe("failed");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const messages = await listApprovalMessages(h.store, order.id);
    expect(messages.every((m) => m.remindedAt !== null)).toBe(true);
    expect([MANAGER, BOSS].map((u) => remindersIn(u, "REM-1").length)).toEqual([1, 1]);
    expect((await h.order(order.id)).status).toBe("awaiting_approval");
  });

  it("expires an order nobody decided within expireAfterDays: not placed, DMs without buttons, the requester told", async () => {
    // Due a minute from now (by the app's clock: a run before that is put off), run once the request recorded both
    // DMs: an expiry run before that would leave the buttons in a DM it did not know of.
    behindMs = 7 * 24 * HOUR - 60_000;
    const order = await orderFor(h, "EXP-1");
    behindMs = 0;
    await approvalRequestDone(h, order.id);
    await runWhenDue(h, QUEUES.approvalExpiry, approvalJobId(QUEUES.approvalExpiry, order.id));
    const expired = await h.waitForOrder(
      (o) => o.id === order.id && o.status === "approval_expired",
      "expiry",
    );
    expect(expired.approval?.decidedBy).toBeNull();
    const reply = await h.fake.waitFor(
      () => {
        const current = h.fake
          .topLevel(HELPDESK)
          .find((m) => texts(m.versions.at(-1)?.blocks).includes("EXP-1"));
        return current && h.fake.thread(HELPDESK, current.ts).find((m) => m.text.includes("expired"));
      },
      { what: "the thread's reply" },
    );
    expect(reply.text).toContain(`<@${AGENT}>`);
    for (const userId of [MANAGER, BOSS]) {
      await h.fake.waitFor(() => {
        const v = approvalDmFor(h, userId, "EXP-1")?.versions.at(-1);
        return v === undefined || !texts(v.blocks).includes("approve_order") ? true : undefined;
      });
    }
    // The order's message says when it expired.
    const message = await h.fake.waitFor(() => {
      const v = h.fake.message(HELPDESK, expired.slackMessageTs!)?.versions.at(-1);
      return v && texts(v.blocks).includes("Approval expired") ? v : undefined;
    });
    expect(texts(message.blocks)).toContain(`the approval request expired${decidedOn(expired)}`);
    expect(h.supplier.requests).toHaveLength(0);
  });

  it("sends a reminder Slack refused again when the job is retried, once, and reminds nobody twice", async () => {
    const order = await orderFor(h, "REM-2");
    const [managerDm, bossDm] = await approvalDmsTo(h, [MANAGER, BOSS], "REM-2");
    await approvalRequestDone(h, order.id);
    // Slack refuses the reminder in the manager's DM, once.
    h.fake.failNext("chat.postMessage", "internal_error", 1, { channel: managerDm!.channel });
    const job = await runReminderWhenDue(h, order.id);
    expect(job.runs).toBe(2);
    expect(remindersUnder(h, managerDm)).toHaveLength(1);
    expect(remindersUnder(h, bossDm)).toHaveLength(1);
    const tries = h.fake
      .calls("chat.postMessage")
      .filter((c) => c.args.channel === managerDm!.channel && c.args.thread_ts === managerDm!.ts);
    expect(tries.map((c) => (c.response as { ok?: boolean } | undefined)?.ok)).toEqual([false, true]);
    expect(await reminded(h, order.id)).toEqual([true, true]);
  });

  it("sends a reminder whose run died after claiming it, once the claim is older than a run may take", async () => {
    const order = await orderFor(h, "REM-3");
    const [managerDm, bossDm] = await approvalDmsTo(h, [MANAGER, BOSS], "REM-3");
    // The request job records each DM after Slack took it: a reminder run (forced early below) before both are
    // recorded would not know the second approver.
    for (const deadline = Date.now() + 15_000; (await listApprovalMessages(h.store, order.id)).length < 2; ) {
      if (Date.now() > deadline) throw new Error("the request job did not record both DMs");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // What a run killed between claiming the manager's reminder and sending it left behind, 10 minutes ago.
    await h.store.query(
      `UPDATE approval_messages SET remind_claimed_at = now() - interval '10 minutes'
       WHERE order_id = $1 AND approver = $2`,
      [order.id, MANAGER],
    );
    await runReminderWhenDue(h, order.id);
    expect(remindersUnder(h, managerDm)).toHaveLength(1);
    expect(remindersUnder(h, bossDm)).toHaveLength(1);
    expect(await reminded(h, order.id)).toEqual([true, true]);
  });

  let before: Awaited<ReturnType<typeof counted>>;

  it("after a rejection and Fix and resubmit, the first request's reminder and expiry do nothing; the new one is reminded and expires once", async () => {
    before = await counted();
    // Asked "3 hours ago", rejected now.
    behindMs = 3 * HOUR;
    const order = await orderFor(h, "RND-1");
    behindMs = 0;
    const firstDm = await h.fake.waitFor(() => approvalDmFor(h, BOSS, "RND-1"), { what: "BOSS's DM" });
    await rejectInDm(h, BOSS, firstDm, "Ask for one laptop, not two");
    const rejected = await h.waitForOrder(
      (o) => o.id === order.id && o.status === "rejected_by_approver",
      "the rejection",
    );

    // Asked again "an hour ago".
    behindMs = HOUR;
    const again = await fixAndResubmit(h, rejected);
    behindMs = 0;
    const round = approvalRound(again);
    expect(round).not.toBe("");
    const newDms = await h.fake.waitFor(
      () => {
        const found = [MANAGER, BOSS].map((u) => approvalDmsFor(h, u, "RND-1")[1]);
        return found.every(Boolean) ? found : undefined;
      },
      { what: "a new DM to each approver" },
    );
    // Both recorded: the new request's job is done.
    await approvalRequestDone(h, order.id, round);
    const newReminders = () => newDms.map((dm) => remindersUnder(h, dm).length);
    const oldReminders = () =>
      [MANAGER, BOSS].map((u) => remindersUnder(h, approvalDmsFor(h, u, "RND-1")[0]));

    // Each job carries its round; the new round's are due by the new request's times.
    const first = (queue: typeof QUEUES.approvalReminder | typeof QUEUES.approvalExpiry) =>
      approvalJobId(queue, order.id);
    const second = (queue: typeof QUEUES.approvalReminder | typeof QUEUES.approvalExpiry) =>
      approvalJobId(queue, order.id, round);
    expect((await h.jobs.getJob(QUEUES.approvalReminder, first(QUEUES.approvalReminder)))?.data).toEqual({
      orderId: order.id,
      round: "",
    });
    const secondReminder = await h.jobs.getJob(QUEUES.approvalReminder, second(QUEUES.approvalReminder));
    expect(secondReminder?.data).toEqual({ orderId: order.id, round });
    expect(secondReminder?.startAfter.toISOString()).toBe(again.approval!.remindAt);
    const secondExpiry = await h.jobs.getJob(QUEUES.approvalExpiry, second(QUEUES.approvalExpiry));
    expect(secondExpiry?.startAfter.toISOString()).toBe(again.approval!.expireAt);

    // The first request's reminder, at its time: nobody is reminded of the new request yet.
    await runWhenDue(h, QUEUES.approvalReminder, first(QUEUES.approvalReminder));
    expect(newReminders()).toEqual([0, 0]);
    expect(oldReminders().flat()).toHaveLength(0);
    expect((await listApprovalMessages(h.store, order.id)).map((m) => m.remindedAt)).toEqual([null, null]);

    // The first request's expiry, at its time: the new request still waits.
    await runWhenDue(h, QUEUES.approvalExpiry, first(QUEUES.approvalExpiry));
    const waiting = await h.order(order.id);
    expect(waiting.status).toBe("awaiting_approval");
    expect(waiting.approval?.decidedAt).toBeNull();
    for (const dm of newDms)
      expect(texts(h.fake.message(dm!.channel, dm!.ts)?.versions.at(-1)?.blocks)).toContain("approve_order");

    // The new request's own reminder: once per approver.
    await runWhenDue(h, QUEUES.approvalReminder, second(QUEUES.approvalReminder));
    expect(newReminders()).toEqual([1, 1]);

    // And its expiry, at its time by the app's clock: seven days after the new request.
    await runWhenDue(h, QUEUES.approvalExpiry, second(QUEUES.approvalExpiry));
    const expired = await h.order(order.id);
    expect(expired.status).toBe("approval_expired");
    for (const dm of newDms) {
      await h.fake.waitFor(
        () => {
          const v = h.fake.message(dm!.channel, dm!.ts)?.versions.at(-1);
          return v && !texts(v.blocks).includes("approve_order") ? v : undefined;
        },
        { what: "the new DM without buttons" },
      );
    }
    expect(newReminders()).toEqual([1, 1]);
    expect(oldReminders().flat()).toHaveLength(0);
    expect(h.supplier.requests).toHaveLength(0);
  });

  it("counts each request once, the rejection and the expiry, with the time each decision took", async () => {
    const after = await counted();
    expect(after.requested - before.requested).toBe(2);
    expect(after.rejected - before.rejected).toBe(1);
    expect(after.expired - before.expired).toBe(1);
    expect(after.rejectedCount - before.rejectedCount).toBe(1);
    expect(after.expiredCount - before.expiredCount).toBe(1);
    // Rejected 3 hours after the first request; expired at its time, 7 days after the second (plus the test's own
    // seconds).
    const rejectedSeconds = after.rejectedSeconds - before.rejectedSeconds;
    expect(rejectedSeconds).toBeGreaterThanOrEqual(3 * 3600);
    expect(rejectedSeconds).toBeLessThan(3 * 3600 + 120);
    const expiredSeconds = after.expiredSeconds - before.expiredSeconds;
    expect(expiredSeconds).toBeGreaterThanOrEqual(7 * 24 * 3600);
    expect(expiredSeconds).toBeLessThan(7 * 24 * 3600 + 120);
  });
});
