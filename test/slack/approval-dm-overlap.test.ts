/**
 * An approver is DMed once per approval round although the approval-request job and the due reminder (which asks an
 * approver whose DM had failed) DM them at the same moment. The overlap is forced, not hoped for: the fake Slack
 * holds one job's DM to the approver before Slack takes it (`holdNext`) while the other job runs, then lets it go.
 * Both orders: the request job's DM held while the reminder runs, and the reminder's DM held while the request job's
 * retry runs. The DM that goes out once the reminder is due is the approver's reminder: none follows in its thread.
 * Over the real wire (the fake Slack Web API), on the store of DATABASE_URL or PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobInfo, QueueName } from "../../src/jobs/index.ts";
import { QUEUES } from "../../src/jobs/queues.ts";
import { approvalJobId } from "../../src/orders/approvals/request.ts";
import { listApprovalMessages } from "../../src/store/repositories/approvals.ts";
import {
  approvalConfig,
  approvalDmFor,
  approvalDmsFor,
  jobDone,
  orderFor,
  remindersUnder,
  runWhenDue,
} from "./support/approvals.ts";
import { BOSS, MANAGER, type StubbedHarness, startOnStubSupplier } from "./support/harness.ts";

describe("an approver DMed by the request job and the reminder at once", () => {
  let h: StubbedHarness;

  beforeAll(async () => {
    h = await startOnStubSupplier([], {
      // The approvers in order: MANAGER, then BOSS (of IT_LEADS); the requester is not asked.
      config: approvalConfig([{ always: true }], { remindAfterHours: 24, expireAfterDays: 7 }),
      // A held call must not reach the client's timeout: that would be a lost answer, another story.
      slackTimeoutMs: 30_000,
      // A failed request job comes back only when the test makes it due.
      approvalPolicy: { retryDelaySeconds: 3600, retryLimit: 3 },
    });
  });

  afterAll(async () => {
    await h?.close();
  });

  /** Makes a waiting or deferred job due now (by the database's clock, which the queue runs by). */
  async function makeDue(queue: QueueName, id: string): Promise<void> {
    await h.store.query(
      `UPDATE ${h.jobs.schema}.job SET start_after = now() - interval '1 second'
        WHERE name = $1 AND id = $2 AND state IN ('created', 'retry')`,
      [queue, id],
    );
  }

  /** Waits until the job satisfies `done`. */
  async function jobWhere(queue: QueueName, id: string, done: (job: JobInfo) => boolean, what: string) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const job = await h.jobs.getJob(queue, id);
      if (job && done(job)) return job;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${JSON.stringify(job)})`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Top-level posts Slack took in BOSS's DM about `ticket` (by user id or by the DM's channel id). */
  function bossDmPosts(ticket: string) {
    const dm = approvalDmFor(h, BOSS, ticket);
    return h.fake
      .calls("chat.postMessage")
      .filter(
        (c) =>
          (c.args.channel === BOSS || c.args.channel === dm?.channel) &&
          c.args.thread_ts === undefined &&
          (c.response as { ok?: boolean } | undefined)?.ok === true &&
          JSON.stringify(c.args).includes(ticket),
      );
  }

  async function expectOneDmEachRemindedOnce(orderId: string, ticket: string): Promise<void> {
    expect(approvalDmsFor(h, BOSS, ticket)).toHaveLength(1);
    expect(bossDmPosts(ticket)).toHaveLength(1);
    const bossDm = approvalDmFor(h, BOSS, ticket)!;
    const managerDm = approvalDmFor(h, MANAGER, ticket)!;
    // The DM that went out once the reminder was due is BOSS's reminder; MANAGER's DM got one in its thread.
    expect(remindersUnder(h, bossDm)).toHaveLength(0);
    expect(remindersUnder(h, managerDm)).toHaveLength(1);
    const messages = await listApprovalMessages(h.store, orderId);
    // Listed by approver: U0BOSS01, then U0MANAGER.
    expect(messages.map((m) => [m.approver, m.messageTs, m.remindedAt !== null])).toEqual([
      [BOSS, bossDm.ts, true],
      [MANAGER, managerDm.ts, true],
    ]);
  }

  it("the request job's DM is on its way when the reminder falls due: the reminder leaves that approver to it", async () => {
    const ticket = "TWICE-1";
    const held = h.fake.holdNext("chat.postMessage", { channel: BOSS });
    const order = await orderFor(h, ticket);
    const requestId = approvalJobId(QUEUES.approvalRequest, order.id);
    const reminderId = approvalJobId(QUEUES.approvalReminder, order.id);
    // The request job DMed MANAGER (and recorded it) and is now DMing BOSS: Slack has not taken it yet.
    await held.arrived;
    const reminded = runWhenDue(h, QUEUES.approvalReminder, reminderId);
    // The reminder ran past asking the approvers whose DM is missing: MANAGER's reminder is in the thread.
    await h.fake.waitFor(() => remindersUnder(h, approvalDmFor(h, MANAGER, ticket)).length === 1, {
      timeoutMs: 15_000,
      what: "MANAGER's reminder",
    });
    held.release();
    await jobDone(h, QUEUES.approvalRequest, requestId);
    await reminded;
    await expectOneDmEachRemindedOnce(order.id, ticket);
  });

  it("the reminder's DM is on its way when the request job's retry runs: the retry leaves that approver to it", async () => {
    const ticket = "TWICE-2";
    // BOSS's first DM fails: the request job is left to retry (when the test says).
    h.fake.failNext("chat.postMessage", "internal_error", 1, { channel: BOSS });
    const order = await orderFor(h, ticket);
    const requestId = approvalJobId(QUEUES.approvalRequest, order.id);
    const reminderId = approvalJobId(QUEUES.approvalReminder, order.id);
    await jobWhere(QUEUES.approvalRequest, requestId, (j) => j.state === "retry", "the request job's retry");
    // The reminder asks BOSS, whose DM is missing; Slack has not taken that DM yet.
    const held = h.fake.holdNext("chat.postMessage", { channel: BOSS });
    const reminded = runWhenDue(h, QUEUES.approvalReminder, reminderId);
    await held.arrived;
    // The request job's retry runs meanwhile, to its end (done, or put off).
    await makeDue(QUEUES.approvalRequest, requestId);
    await jobWhere(
      QUEUES.approvalRequest,
      requestId,
      (j) => j.runs >= 2 && j.state !== "active",
      "the request job's retry run",
    );
    held.release();
    await reminded;
    await runWhenDue(h, QUEUES.approvalRequest, requestId);
    await expectOneDmEachRemindedOnce(order.id, ticket);
  });
});
