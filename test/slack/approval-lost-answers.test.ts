/**
 * The approval's posts shown once although Slack took a post whose answer never came back: the connection dropped
 * after Slack stored it (`lost_answer`), or Slack answered after the client's timeout (`late_answer`). The job is
 * retried; each post was recorded as attempted before Slack was called, so the retry looks for it (by its
 * metadata) and does not post it again: the approver's DM with Approve / Reject, the reminder in its thread, and
 * the decision told in the order's thread. Over the real wire (the fake Slack Web API), on the store of
 * DATABASE_URL or PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { approvalJobId } from "../../src/orders/approvals/request.ts";
import { listApprovalMessages } from "../../src/store/repositories/approvals.ts";
import {
  approvalConfig,
  approvalDmFor,
  approvalDmsFor,
  approvalRequestDone,
  jobDone,
  orderFor,
  rejectInDm,
  reminded,
  remindersUnder,
  runReminderWhenDue,
} from "./support/approvals.ts";
import { BOSS, HELPDESK, MANAGER, type StubbedHarness, startOnStubSupplier } from "./support/harness.ts";
import { interruptNextPost, LOST_ANSWER_MODES } from "./support/lost-answers.ts";

describe.each(LOST_ANSWER_MODES)("approval posts whose answer Slack lost (%s)", (mode) => {
  let h: StubbedHarness;

  beforeAll(async () => {
    h = await startOnStubSupplier([], {
      config: approvalConfig([{ always: true }], { remindAfterHours: 24, expireAfterDays: 7 }),
    });
  });

  afterAll(() => h?.close());

  const postsTo = (channel: string, text: string) =>
    h.fake
      .calls("chat.postMessage")
      .filter((c) => c.args.channel === channel && JSON.stringify(c.args).includes(text));

  it("DMs an approver once: the retry finds the DM Slack took and records it", async () => {
    // The request job DMs the manager (by user id) first; that DM's answer is lost.
    interruptNextPost(h, mode, { channel: MANAGER });
    const order = await orderFor(h, "DML-1");
    const job = await approvalRequestDone(h, order.id);
    expect(job.runs).toBe(2);
    expect(approvalDmsFor(h, MANAGER, "DML-1")).toHaveLength(1);
    expect(approvalDmsFor(h, BOSS, "DML-1")).toHaveLength(1);
    expect(postsTo(MANAGER, "DML-1")).toHaveLength(1);
    // The DM found is the one recorded: the decision will rewrite it.
    const dm = approvalDmFor(h, MANAGER, "DML-1")!;
    const recorded = (await listApprovalMessages(h.store, order.id)).find((m) => m.approver === MANAGER);
    expect(recorded).toMatchObject({ channelId: dm.channel, messageTs: dm.ts });
  });

  it("reminds an approver once: the retry finds the reminder Slack took", async () => {
    const order = await orderFor(h, "REML-1");
    await approvalRequestDone(h, order.id);
    const managerDm = approvalDmFor(h, MANAGER, "REML-1")!;
    const bossDm = approvalDmFor(h, BOSS, "REML-1")!;
    interruptNextPost(h, mode, { channel: managerDm.channel, text: "Reminder" });
    const job = await runReminderWhenDue(h, order.id);
    expect(job.runs).toBe(2);
    expect(remindersUnder(h, managerDm)).toHaveLength(1);
    expect(remindersUnder(h, bossDm)).toHaveLength(1);
    expect(postsTo(managerDm.channel, "Reminder")).toHaveLength(1);
    expect(await reminded(h, order.id)).toEqual([true, true]);
  });

  it("tells the order's thread of the decision once: the retry finds the reply Slack took", async () => {
    const order = await orderFor(h, "DECL-1");
    await approvalRequestDone(h, order.id);
    interruptNextPost(h, mode, { channel: HELPDESK, text: "The order was not placed" });
    await rejectInDm(h, BOSS, approvalDmFor(h, BOSS, "DECL-1")!, "Not this quarter");
    const job = await jobDone(h, QUEUES.approvalDecision, approvalJobId(QUEUES.approvalDecision, order.id));
    expect(job.runs).toBe(2);
    const rejected = await h.order(order.id);
    expect(rejected.approval?.announcedAt).not.toBeNull();
    const told = h.fake
      .thread(HELPDESK, rejected.slackMessageTs!)
      .filter((m) => m.text.includes("The order was not placed"));
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain("Not this quarter");
  });
});
