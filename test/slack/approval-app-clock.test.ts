/**
 * The approval's reminder and expiry happen when the app's clock says they are due, not when the queue runs their
 * jobs: the queue runs a job by the database's clock, which the app's clock may be behind (the demo's world clock
 * is, by up to a day: tools/world-clock.ts). Here the app's clock runs an hour behind, and the queue is made to run
 * the jobs before the app's clock reaches their time: nothing is said or decided until it does, and then it happens
 * once. Over the real wire (signed requests, the fake Slack Web API, a scripted supplier).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobInfo, QueueName } from "../../src/jobs/index.ts";
import { QUEUES } from "../../src/jobs/queues.ts";
import { approvalJobId } from "../../src/orders/approvals/request.ts";
import { success } from "../supplier/support/stub-supplier.ts";
import {
  approvalConfig,
  approvalDmsTo,
  approvalRequestDone,
  orderFor,
  remindersUnder,
  texts,
} from "./support/approvals.ts";
import { BOSS, HELPDESK, MANAGER, type StubbedHarness, startOnStubSupplier } from "./support/harness.ts";

const HOUR = 3_600_000;

describe("approval reminder and expiry by the app's clock", () => {
  let h: StubbedHarness;
  /** The app's clock against the real one (the database's): an hour behind, or moved on to a due time. */
  let offsetMs = -HOUR;

  beforeAll(async () => {
    h = await startOnStubSupplier([success()], {
      config: approvalConfig([{ always: true }], { remindAfterHours: 24, expireAfterDays: 7 }),
      now: () => new Date(Date.now() + offsetMs),
    });
  });

  afterAll(() => h?.close());

  /** The app's clock reaches `at` (and runs on from there). */
  const appClockAt = (at: string) => {
    offsetMs = Date.parse(at) - Date.now() + 1000;
  };

  /**
   * The queue runs the job now, whatever the app's clock says (the database's clock reached its `startAfter`), and
   * the test waits until that run ended: completed, or put off until later.
   */
  async function queueRunsNow(queue: QueueName, id: string): Promise<JobInfo> {
    const runs = (await h.jobs.getJob(queue, id))?.runs ?? 0;
    const { rows } = await h.store.query(
      `UPDATE ${h.jobs.schema}.job SET start_after = now() - interval '1 second'
       WHERE name = $1 AND id = $2 AND state IN ('created', 'retry') RETURNING id`,
      [queue, id],
    );
    if (rows.length !== 1) throw new Error(`no ${queue} job ${id} waiting for its time`);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const job = await h.jobs.getJob(queue, id);
      if (job && job.runs > runs && ["completed", "retry", "failed"].includes(job.state)) return job;
      if (Date.now() > deadline) throw new Error(`${queue} job ${id} did not run (${job?.state})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The approval DMs of MANAGER and BOSS for the ticket, once both were sent. */
  const dms = (ticket: string) => approvalDmsTo(h, [MANAGER, BOSS], ticket);
  const buttonsShown = (shown: Awaited<ReturnType<typeof dms>>) =>
    shown.map((dm) =>
      texts(h.fake.message(dm.channel, dm.ts)?.versions.at(-1)?.blocks).includes("approve_order"),
    );
  const orderThread = (ticket: string) => {
    const message = h.fake.topLevel(HELPDESK).find((m) => texts(m.versions.at(-1)?.blocks).includes(ticket));
    return message ? h.fake.thread(HELPDESK, message.ts) : [];
  };

  it("does not expire a request the queue runs before the app's clock reaches its expiry; expires it once it does", async () => {
    offsetMs = -HOUR;
    const order = await orderFor(h, "CLK-1");
    const sent = await dms("CLK-1");
    await approvalRequestDone(h, order.id);
    const expiry = approvalJobId(QUEUES.approvalExpiry, order.id);

    await queueRunsNow(QUEUES.approvalExpiry, expiry);
    expect((await h.order(order.id)).status).toBe("awaiting_approval");
    expect(buttonsShown(sent)).toEqual([true, true]);
    expect(orderThread("CLK-1").filter((m) => m.text.includes("expired"))).toEqual([]);

    appClockAt(order.approval!.expireAt);
    const ran = await queueRunsNow(QUEUES.approvalExpiry, expiry);
    expect(ran.state).toBe("completed");
    const expired = await h.order(order.id);
    expect(expired.status).toBe("approval_expired");
    // Recorded at the app's time, at or after the request's expiry.
    expect(expired.approval!.decidedAt!.getTime()).toBeGreaterThanOrEqual(
      Date.parse(order.approval!.expireAt),
    );
    await h.fake.waitFor(() => (buttonsShown(sent).every((shown) => !shown) ? true : undefined), {
      what: "the DMs without buttons",
    });
    await h.fake.waitFor(() => orderThread("CLK-1").find((m) => m.text.includes("expired")), {
      what: "the thread told",
    });
    expect(h.supplier.requests).toHaveLength(0);
  });

  it("does not remind approvers before the app's clock reaches the reminder's time; reminds each once when it does", async () => {
    offsetMs = -HOUR;
    const order = await orderFor(h, "CLK-2");
    const sent = await dms("CLK-2");
    await approvalRequestDone(h, order.id);
    const reminder = approvalJobId(QUEUES.approvalReminder, order.id);

    await queueRunsNow(QUEUES.approvalReminder, reminder);
    expect(sent.map((dm) => remindersUnder(h, dm).length)).toEqual([0, 0]);

    appClockAt(order.approval!.remindAt);
    const ran = await queueRunsNow(QUEUES.approvalReminder, reminder);
    expect(ran.state).toBe("completed");
    expect(sent.map((dm) => remindersUnder(h, dm).length)).toEqual([1, 1]);
    expect((await h.order(order.id)).status).toBe("awaiting_approval");
  });
});
