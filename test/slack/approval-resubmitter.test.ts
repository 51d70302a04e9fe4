/**
 * Whoever requested or resubmitted an approval round may not approve it: an approver who may also order uses Fix
 * and resubmit on a colleague's order another approver rejected, and is then neither asked (no DM for the new round)
 * nor able to approve it with any copy of a button (their click is refused and says why); the other approvers are
 * asked and decide. Over the real wire: signed requests, the fake Slack Web API, a scripted supplier.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import {
  approvalConfig,
  approvalDmFor,
  approvalDmsFor,
  clickApproval,
  orderFor,
  rejectInDm,
  replayClick,
  texts,
} from "./support/approvals.ts";
import { BOSS, type Harness, HELPDESK, MANAGER, startHarness } from "./support/harness.ts";

describe("an approver who resubmitted a colleague's order", () => {
  let supplier: StubSupplier;
  let h: Harness;

  beforeAll(async () => {
    supplier = await startStubSupplier([success(), success()]);
    h = await startHarness({
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config: approvalConfig([{ deliveryAt: "Home" }]),
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  const sentFor = (ticket: string) =>
    supplier.requests.filter((r) => JSON.parse(r.body).customerReference === ticket).length;

  it("is not asked to approve the new round, cannot approve it with an old button, and is told why; another approver decides", async () => {
    const order = await orderFor(h, "SELF-1");
    const bossDm = await h.fake.waitFor(() => approvalDmFor(h, BOSS, "SELF-1"), { what: "BOSS's DM" });
    const managerDm = await h.fake.waitFor(() => approvalDmFor(h, MANAGER, "SELF-1"), {
      what: "MANAGER's DM",
    });
    await rejectInDm(h, BOSS, bossDm, "Not to a home address");
    const rejected = await h.waitForOrder(
      (o) => o.id === order.id && o.status === "rejected_by_approver",
      "SELF-1 rejected",
    );
    await h.fake.waitFor(
      () => {
        const v = h.fake.message(HELPDESK, rejected.slackMessageTs!)?.versions.at(-1);
        return v && texts(v.blocks).includes("fix_and_resubmit") ? v : undefined;
      },
      { what: "Fix and resubmit on the order's message" },
    );

    // MANAGER (an approver, and allowed to order through a user group) resubmits it to their own address.
    const manager = h.user(MANAGER);
    const click = await manager.clickInMessage({
      channel: HELPDESK,
      ts: rejected.slackMessageTs!,
      actionId: "fix_and_resubmit",
    });
    const fix = await manager.openedModal(click.triggerId);
    const resubmitted = await manager.submit(fix.id, {
      first_name: "Mark",
      last_name: "Manager",
      email: "mark@example.com",
      phone: "+31 6 1234 5678",
      address1: "Prinsengracht 263",
      city: "Amsterdam",
      zip: "1016 GV",
    });
    expect(resubmitted.outcome.outcome).toBe("closed");
    const waiting = await h.waitForOrder(
      (o) => o.id === order.id && o.status === "awaiting_approval",
      "SELF-1 waiting again",
    );
    expect(waiting.resubmittedBy).toBe(MANAGER);

    // The other approver is asked again; the resubmitter is not.
    const fresh = await h.fake.waitFor(
      () =>
        approvalDmsFor(h, BOSS, "SELF-1").length === 2 ? approvalDmsFor(h, BOSS, "SELF-1")[1] : undefined,
      { what: "BOSS's DM for the new round" },
    );
    expect(approvalDmsFor(h, MANAGER, "SELF-1")).toHaveLength(1);

    // Their old button (value: the order's id) is refused, with the reason, and nothing changes.
    await replayClick(h, MANAGER, managerDm, "approve_order");
    const answer = await h.fake.waitFor(
      () => h.fake.responses().find((r) => JSON.stringify(r.body).includes("You resubmitted order")),
      { what: "the refusal to the resubmitter" },
    );
    expect(answer.body).toMatchObject({ response_type: "ephemeral", replace_original: false });
    expect((await h.order(order.id)).status).toBe("awaiting_approval");
    // Reject is refused too: no reason modal opens for them.
    const reject = await replayClick(h, MANAGER, managerDm, "reject_order");
    expect(reject.status).toBe(200);
    await h.fake.waitFor(
      () =>
        h.fake.responses().filter((r) => JSON.stringify(r.body).includes("You resubmitted order")).length >= 2
          ? true
          : undefined,
      { what: "the second refusal" },
    );
    expect(
      h.fake.views({ userId: MANAGER }).filter((v) => JSON.stringify(v).includes("reject_reason")),
    ).toEqual([]);
    expect(sentFor("SELF-1")).toBe(0);

    await clickApproval(h, BOSS, fresh, "approve_order");
    const placed = await h.waitForOrder((o) => o.id === order.id && o.status === "received", "placement");
    expect(placed.approval?.decidedBy).toBe(BOSS);
    expect(sentFor("SELF-1")).toBe(1);
  });
});
