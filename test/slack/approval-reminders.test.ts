/**
 * The approval's reminder and expiry, as durable jobs due at times taken from the app's (injected) clock when the
 * order was accepted: an order accepted "25 hours ago" has its reminder due now, one accepted "7 days ago" its
 * expiry. One reminder per approver, never repeated when the job runs again; the expiry ends the order without any
 * supplier call, the approvers' DMs lose their buttons and the thread tells the requester.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { listApprovalMessages } from "../../src/store/repositories/approvals.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { approvalConfig, approvalDmFor, orderFor, texts } from "./support/approvals.ts";
import { AGENT, BOSS, type Harness, HELPDESK, MANAGER, startHarness } from "./support/harness.ts";

const HOUR = 3_600_000;

describe("approval reminders and expiry", () => {
  let supplier: StubSupplier;
  let h: Harness;
  /** How far the app's clock is behind the real one (the database's, which runs the jobs). */
  let behindMs = 0;

  beforeAll(async () => {
    supplier = await startStubSupplier([success()]);
    h = await startHarness({
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config: approvalConfig([{ always: true }], { remindAfterHours: 24, expireAfterDays: 7 }),
      now: () => new Date(Date.now() - behindMs),
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  const remindersIn = (userId: string, ticket: string) => {
    const dm = approvalDmFor(h, userId, ticket);
    return dm ? h.fake.thread(dm.channel, dm.ts).filter((m) => m.text.includes("Reminder")) : [];
  };

  it("reminds each approver once when nobody decided within remindAfterHours", async () => {
    behindMs = 25 * HOUR;
    const order = await orderFor(h, "REM-1");
    behindMs = 0;
    expect(Date.parse(order.approval!.remindAt) - Date.parse(order.approval!.requestedAt)).toBe(24 * HOUR);
    await h.fake.waitFor(
      () => ([MANAGER, BOSS].every((u) => remindersIn(u, "REM-1").length === 1) ? true : undefined),
      { what: "one reminder in each approver's DM" },
    );
    expect(remindersIn(MANAGER, "REM-1")[0]?.text).toContain("still waits for your approval");

    // The job again (a restart that re-ran it): nobody is reminded twice.
    const again = await h.jobs.send(QUEUES.approvalReminder, { orderId: order.id });
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
    // Due a few seconds after the DMs went out.
    behindMs = 7 * 24 * HOUR - 3000;
    const order = await orderFor(h, "EXP-1");
    behindMs = 0;
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
    expect(supplier.requests).toHaveLength(0);
  });
});
