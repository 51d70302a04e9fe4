/**
 * An approver Slack will never DM (`account_inactive`…) is not retried and the admins are told, once; an approver
 * whose DM kept failing until the request job gave up gets it when the reminder falls due. Over the real wire (signed
 * requests, the fake Slack Web API refusing the DMs, a scripted supplier); the reminder is run when due.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { approvalJobId } from "../../src/orders/approvals/request.ts";
import { listApprovalMessages } from "../../src/store/repositories/approvals.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import {
  approvalConfig,
  approvalDmFor,
  approvalDmsFor,
  jobDone,
  orderFor,
  runWhenDue,
  texts,
} from "./support/approvals.ts";
import { ADMIN, BOSS, type Harness, MANAGER, startHarness } from "./support/harness.ts";

describe("approvers whose DM Slack refuses", () => {
  let supplier: StubSupplier;
  let h: Harness;
  let aheadMs = 0;

  beforeAll(async () => {
    supplier = await startStubSupplier([success()]);
    h = await startHarness({
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config: approvalConfig([{ deliveryAt: "Home" }]),
      now: () => new Date(Date.now() + aheadMs),
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  const dmCallsTo = (userId: string, ticket: string) =>
    h.fake
      .calls("chat.postMessage")
      .filter((c) => c.args.channel === userId && JSON.stringify(c.args).includes(ticket));

  it("does not retry an approver whose account is inactive, and tells the admins once", async () => {
    h.fake.failNext("chat.postMessage", "account_inactive", 5, { channel: BOSS });
    const order = await orderFor(h, "DMF-1");
    const job = await jobDone(h, QUEUES.approvalRequest, approvalJobId(QUEUES.approvalRequest, order.id));
    expect(job.runs).toBe(1);
    expect(approvalDmFor(h, MANAGER, "DMF-1")).toBeDefined();
    expect(dmCallsTo(BOSS, "DMF-1")).toHaveLength(1);
    const alert = await h.fake.waitFor(
      () => h.fake.topLevel(ADMIN).find((m) => (m.versions.at(-1)?.text ?? "").includes("cannot be reached")),
      { what: "the admin alert" },
    );
    expect(alert.versions.at(-1)?.text).toContain(`<@${BOSS}>`);
    expect(alert.versions.at(-1)?.text).toContain("account_inactive");

    // Not asked again when the reminder falls due either.
    await runWhenDue(h, QUEUES.approvalReminder, approvalJobId(QUEUES.approvalReminder, order.id));
    expect(dmCallsTo(BOSS, "DMF-1")).toHaveLength(1);
    expect(
      h.fake.topLevel(ADMIN).filter((m) => (m.versions.at(-1)?.text ?? "").includes("cannot be reached")),
    ).toHaveLength(1);
    h.fake.clearFaults();
  });

  it("asks an approver whose DM failed until the request job gave up when the reminder falls due", async () => {
    // The request job's four runs (a try and three retries) all fail for MANAGER.
    h.fake.failNext("chat.postMessage", "internal_error", 4, { channel: MANAGER });
    const order = await orderFor(h, "DMF-2");
    const requestJob = approvalJobId(QUEUES.approvalRequest, order.id);
    const deadline = Date.now() + 20_000;
    while ((await h.jobs.getJob(QUEUES.approvalRequest, requestJob))?.state !== "failed") {
      if (Date.now() > deadline) throw new Error("the request job did not give up");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const gaveUp = await h.jobs.getJob(QUEUES.approvalRequest, requestJob);
    expect(gaveUp?.runs, JSON.stringify(gaveUp?.output)).toBe(4);
    expect(approvalDmFor(h, MANAGER, "DMF-2")).toBeUndefined();
    expect(approvalDmFor(h, BOSS, "DMF-2")).toBeDefined();

    // The reminder falls due (24 hours later by the app's clock).
    aheadMs = 25 * 3_600_000;
    await runWhenDue(h, QUEUES.approvalReminder, approvalJobId(QUEUES.approvalReminder, order.id));
    aheadMs = 0;
    const dm = approvalDmFor(h, MANAGER, "DMF-2");
    expect(texts(dm?.versions.at(-1)?.blocks)).toContain("approve_order");
    expect(approvalDmsFor(h, MANAGER, "DMF-2")).toHaveLength(1);
    const messages = await listApprovalMessages(h.store, order.id);
    expect(messages.map((m) => m.approver).sort()).toEqual([BOSS, MANAGER].sort());
    expect(messages.every((m) => m.remindedAt !== null)).toBe(true);
  });
});
