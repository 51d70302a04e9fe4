/**
 * Approvals in Slack, over the real wire (signed requests or Socket Mode, the fake Slack Web API, a scripted
 * supplier on real HTTP, the store of DATABASE_URL or PGlite): an order matching its profile's approval rule waits,
 * its message names the approvers and the rule, every approver but the requester gets a DM with Approve / Reject;
 * the first decision wins and places the order exactly once (double clicks, two approvers at once); a rejection
 * needs a reason and places nothing; the requester and non-approvers are refused and nothing changes. A DM Slack
 * refused is sent again by the job's retry, without DMing the others twice. The decision shows who and when.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import { createMetrics } from "../../src/metrics.ts";
import { approvalJobId } from "../../src/orders/approvals/request.ts";
import { listApprovalMessages } from "../../src/store/repositories/approvals.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import {
  approvalConfig,
  approvalDmFor,
  approvalDmsFor,
  clickApproval,
  decidedOn,
  jobDone,
  orderFor,
  replayClick,
  texts,
} from "./support/approvals.ts";
import {
  AGENT,
  BOSS,
  type Harness,
  HELPDESK,
  MANAGER,
  OUTSIDER,
  startHarness,
  TRANSPORTS,
} from "./support/harness.ts";

describe.each(TRANSPORTS)("approvals over %s", (transport) => {
  let supplier: StubSupplier;
  let h: Harness;
  const metrics = createMetrics({ defaultMetrics: false });

  beforeAll(async () => {
    supplier = await startStubSupplier([success(), success(), success(), success()]);
    h = await startHarness({
      transport,
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config: approvalConfig([{ deliveryAt: "Home" }]),
      approvalMetrics: metrics.approvals,
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  const sentFor = (ticket: string) =>
    supplier.requests.filter((r) => JSON.parse(r.body).customerReference === ticket).length;

  /** `order_desk_approvals_requested_total` of the profile, as it is now. */
  const requested = async () =>
    (await metrics.approvals.requestedTotal.get()).values.find((v) => v.labels.profile === "Acme EU")
      ?.value ?? 0;

  const ephemeralWith = (words: string) =>
    h.fake.waitFor(() => h.fake.responses().find((r) => JSON.stringify(r.body).includes(words)), {
      what: `an answer saying "${words}"`,
    });

  it("holds a Home delivery for approval: the message names approvers and rule, approvers get a DM, the supplier nothing", async () => {
    const order = await orderFor(h, "APR-1");
    expect(order.status).toBe("awaiting_approval");
    expect(order.approval).toMatchObject({ rule: "deliveryAt", phrase: "a Home delivery" });

    const message = await h.fake.waitFor(
      () => {
        const m = h.fake.topLevel(HELPDESK).find((x) => texts(x.versions.at(-1)?.blocks).includes("APR-1"));
        return m && texts(m.versions.at(-1)?.blocks).includes("Waiting for approval") ? m : undefined;
      },
      { what: "the order's message" },
    );
    const shown = texts(message.versions.at(-1)?.blocks);
    expect(shown).toContain(
      `Waiting for approval from <@${AGENT}>, <@${MANAGER}> or members of <!subteam^S0ITLEADS>`,
    );
    expect(shown).toContain("a Home delivery");

    // The requester (an approver too) is not asked; the group is expanded to its members.
    const dms = await h.fake.waitFor(
      () => {
        const found = [MANAGER, BOSS].map((u) => approvalDmFor(h, u, "APR-1"));
        return found.every(Boolean) ? found : undefined;
      },
      { what: "a DM to each approver" },
    );
    expect(approvalDmFor(h, AGENT, "APR-1")).toBeUndefined();
    const dm = dms[0]!;
    const blocks = (dm.versions.at(-1)?.blocks ?? []) as {
      type: string;
      elements?: { text?: { text: string } }[];
    }[];
    const buttons = blocks
      .filter((b) => b.type === "actions")
      .flatMap((b) => b.elements ?? [])
      .map((e) => e.text?.text);
    expect(buttons).toEqual(["Approve", "Reject"]);
    expect(texts(dm.versions.at(-1)?.blocks)).toContain("Nina Newhire");
    expect(texts(dm.versions.at(-1)?.blocks)).toContain(`<@${AGENT}>`);
    expect(sentFor("APR-1")).toBe(0);
  });

  it("refuses the requester (even as an approver) and non-approvers; nothing changes", async () => {
    const order = await h.waitForOrder((o) => o.customerReference === "APR-1", "APR-1");
    const dm = approvalDmFor(h, MANAGER, "APR-1")!;

    await clickApproval(h, AGENT, dm, "approve_order");
    const own = await ephemeralWith("cannot decide on it yourself");
    expect(own.body).toMatchObject({ response_type: "ephemeral", replace_original: false });

    await clickApproval(h, OUTSIDER, dm, "approve_order");
    await ephemeralWith("You are not an approver of the profile");
    await clickApproval(h, OUTSIDER, dm, "reject_order");
    expect(h.fake.views({ userId: OUTSIDER })).toHaveLength(0);

    expect((await h.order(order.id)).status).toBe("awaiting_approval");
    expect(sentFor("APR-1")).toBe(0);
  });

  it("places the order exactly once when approvers double-click and click at the same moment; every DM and the thread say who approved", async () => {
    const order = await h.waitForOrder((o) => o.customerReference === "APR-1", "APR-1");
    const managerDm = approvalDmFor(h, MANAGER, "APR-1")!;
    const bossDm = approvalDmFor(h, BOSS, "APR-1")!;
    await Promise.all([
      clickApproval(h, MANAGER, managerDm, "approve_order"),
      clickApproval(h, MANAGER, managerDm, "approve_order"),
      clickApproval(h, BOSS, bossDm, "approve_order"),
    ]);
    const placed = await h.waitForOrder((o) => o.id === order.id && o.status === "received", "placement");
    const approver = placed.approval?.decidedBy;
    expect([MANAGER, BOSS]).toContain(approver);
    expect(placed.approval?.decidedAt).toBeInstanceOf(Date);

    // Each DM loses its buttons and names the approver and when they approved.
    for (const userId of [MANAGER, BOSS]) {
      const latest = await h.fake.waitFor(
        () => {
          const v = approvalDmFor(h, userId, "APR-1")?.versions.at(-1);
          return v && texts(v.blocks).includes(`Approved by <@${approver}>`) ? v : undefined;
        },
        { what: `${userId}'s DM showing the approval` },
      );
      expect(texts(latest.blocks)).not.toContain("approve_order");
      expect(texts(latest.blocks)).toContain(`Approved by <@${approver}>${decidedOn(placed)}`);
    }
    const reply = await h.fake.waitFor(
      () => h.fake.thread(HELPDESK, placed.slackMessageTs!).find((m) => m.text.includes("Approved by")),
      { what: "the thread's reply" },
    );
    expect(reply.text).toContain(`Approved by <@${approver}>`);
    const message = await h.fake.waitFor(() => {
      const v = h.fake.message(HELPDESK, placed.slackMessageTs!)?.versions.at(-1);
      return v && texts(v.blocks).includes(placed.correlationId!) ? v : undefined;
    });
    expect(texts(message.blocks)).toContain(`Approved by <@${approver}>${decidedOn(placed)}`);

    // The loser of the race and a replayed click are told it was decided.
    await replayClick(h, BOSS, bossDm, "approve_order");
    await ephemeralWith("was already approved");
    expect(sentFor("APR-1")).toBe(1);
    expect(await listApprovalMessages(h.store, order.id)).toHaveLength(2);
  });

  it("asks for a reason to reject, then ends the order without any supplier call and offers Fix and resubmit", async () => {
    const order = await orderFor(h, "APR-2");
    const dm = await h.fake.waitFor(() => approvalDmFor(h, BOSS, "APR-2"), { what: "BOSS's DM" });
    const click = await clickApproval(h, BOSS, dm, "reject_order");
    const modal = await h.user(BOSS).openedModal(click.triggerId);

    const empty = await h.user(BOSS).submit(modal.id, { reject_reason: "   " });
    expect(empty.outcome.outcome).toBe("errors");
    expect((await h.order(order.id)).status).toBe("awaiting_approval");

    const done = await h
      .user(BOSS)
      .submit(modal.id, { reject_reason: "Office delivery only for contractors" });
    expect(done.outcome.outcome).toBe("closed");
    const rejected = await h.order(order.id);
    expect(rejected.status).toBe("rejected_by_approver");
    expect(rejected.approval).toMatchObject({
      decidedBy: BOSS,
      reason: "Office delivery only for contractors",
    });

    const reply = await h.fake.waitFor(
      () => h.fake.thread(HELPDESK, rejected.slackMessageTs!).find((m) => m.text.includes("Rejected by")),
      { what: "the thread's reply" },
    );
    expect(reply.text).toContain("Office delivery only for contractors");
    expect(reply.text).toContain(`<@${AGENT}>`);
    const message = await h.fake.waitFor(() => {
      const v = h.fake.message(HELPDESK, rejected.slackMessageTs!)?.versions.at(-1);
      return v && texts(v.blocks).includes("Fix and resubmit") ? v : undefined;
    });
    // Who rejected it, when, and why.
    expect(texts(message.blocks)).toContain(
      `Rejected by <@${BOSS}>${decidedOn(rejected)}: Office delivery only for contractors`,
    );
    await h.fake.waitFor(() => {
      const v = approvalDmFor(h, MANAGER, "APR-2")?.versions.at(-1);
      return v && texts(v.blocks).includes(`Rejected by <@${BOSS}>`) ? v : undefined;
    });

    // Approving it afterwards changes nothing.
    await replayClick(h, MANAGER, dm, "approve_order");
    await ephemeralWith("was already rejected");
    expect(sentFor("APR-2")).toBe(0);
  });

  it("lets the requester fix and resubmit a rejected order, which asks the approvers again and is placed once approved", async () => {
    const rejected = await h.waitForOrder(
      (o) => o.customerReference === "APR-2" && o.status === "rejected_by_approver",
      "APR-2 rejected",
    );
    const click = await h.agent.clickInMessage({
      channel: HELPDESK,
      ts: rejected.slackMessageTs!,
      actionId: "fix_and_resubmit",
    });
    const fix = await h.agent.openedModal(click.triggerId);
    const resubmitted = await h.agent.submit(fix.id, { line_0_quantity: "1" });
    expect(resubmitted.outcome.outcome).toBe("closed");
    const again = await h.waitForOrder(
      (o) => o.id === rejected.id && o.status === "awaiting_approval",
      "APR-2 waiting again",
    );
    expect(again.approval?.decidedBy).toBeNull();
    // A new DM with buttons for each approver (the old ones keep showing the rejection).
    const fresh = await h.fake.waitFor(
      () =>
        h.fake
          .dm(MANAGER)
          .find(
            (m) =>
              m.threadTs === undefined &&
              texts(m.versions.at(-1)?.blocks).includes("*APR-2*") &&
              texts(m.versions.at(-1)?.blocks).includes("approve_order"),
          ),
      { what: "a new approval DM for APR-2" },
    );
    await clickApproval(h, MANAGER, fresh, "approve_order");
    const placed = await h.waitForOrder((o) => o.id === rejected.id && o.status === "received", "placement");
    expect(placed.approval?.decidedBy).toBe(MANAGER);
    expect(sentFor("APR-2")).toBe(1);
  });

  it("DMs again an approver whose DM Slack refused, without DMing the others twice, and counts the request once", async () => {
    const before = await requested();
    // Slack refuses the DM to BOSS (posted to the user id), once.
    h.fake.failNext("chat.postMessage", "internal_error", 1, { channel: BOSS });
    const order = await orderFor(h, "APR-4");
    const bossDm = await h.fake.waitFor(() => approvalDmFor(h, BOSS, "APR-4"), {
      what: "BOSS's DM, sent by the job's retry",
      timeoutMs: 10_000,
    });
    expect(texts(bossDm.versions.at(-1)?.blocks)).toContain("approve_order");
    const job = await jobDone(h, QUEUES.approvalRequest, approvalJobId(QUEUES.approvalRequest, order.id));
    expect(job.runs).toBe(2);
    expect(approvalDmsFor(h, MANAGER, "APR-4")).toHaveLength(1);
    expect(approvalDmsFor(h, BOSS, "APR-4")).toHaveLength(1);
    const toBoss = h.fake.calls("chat.postMessage").filter((c) => c.args.channel === BOSS);
    expect(toBoss.filter((c) => JSON.stringify(c.args).includes("APR-4"))).toHaveLength(2);
    expect((await listApprovalMessages(h.store, order.id)).map((m) => m.approver).sort()).toEqual(
      [BOSS, MANAGER].sort(),
    );
    expect((await requested()) - before).toBe(1);
    expect(sentFor("APR-4")).toBe(0);
  });

  it("counts a request once when its job's first run failed before asking anyone", async () => {
    const before = await requested();
    // The order's message cannot be posted on the job's first run (its three tries), only on the retry.
    h.fake.failNext("chat.postMessage", "internal_error", 3, { channel: HELPDESK });
    const order = await orderFor(h, "APR-5");
    const job = await jobDone(h, QUEUES.approvalRequest, approvalJobId(QUEUES.approvalRequest, order.id));
    expect(job.runs).toBe(2);
    expect(approvalDmsFor(h, MANAGER, "APR-5")).toHaveLength(1);
    expect(approvalDmsFor(h, BOSS, "APR-5")).toHaveLength(1);
    expect((await requested()) - before).toBe(1);
  });

  it("places an order that matches no rule at once, as before", async () => {
    const order = await orderFor(h, "APR-3", { delivery_at: "Office", company: "Acme BV" });
    expect(order.approval ?? null).toBeNull();
    await h.waitForOrder((o) => o.id === order.id && o.status === "received", "placement");
    expect(approvalDmFor(h, MANAGER, "APR-3")).toBeUndefined();
  });
});
