/**
 * App Home for approvers: "Waiting for your approval" above "My orders" lists what waits for them (not their own
 * orders), with the same Approve / Reject; approving there places the order and the list refreshes. The decision
 * is counted: approvals requested and decided by outcome, and the time to decision.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics } from "../../src/metrics.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import {
  approvalConfig,
  approvalDmFor,
  clickApproval,
  decidedOn,
  orderFor,
  texts,
} from "./support/approvals.ts";
import { AGENT, BOSS, type Harness, MANAGER, OUTSIDER, startHarness } from "./support/harness.ts";

describe("App Home for approvers", () => {
  let supplier: StubSupplier;
  let h: Harness;
  const metrics = createMetrics({ defaultMetrics: false });

  beforeAll(async () => {
    supplier = await startStubSupplier([success(), success(), success()]);
    h = await startHarness({
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config: approvalConfig([{ always: true }]),
      approvalMetrics: metrics.approvals,
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  const home = (userId: string, includes: string, present = true) =>
    h.fake.waitFor(
      () => {
        const v = h.fake.homeView(userId);
        return v && texts(v.definition.blocks).includes(includes) === present ? v : undefined;
      },
      { what: `${userId}'s Home ${present ? "with" : "without"} ${includes}` },
    );

  it("lists the order for an approver above My orders, not for its requester or others, and approves from there", async () => {
    const order = await orderFor(h, "HOM-1");
    await h.waitForOrder((o) => o.id === order.id && o.slackMessageTs !== null, "the order's message");

    await h.requests.appHomeOpened({ userId: BOSS });
    const view = await home(BOSS, "Waiting for your approval");
    const shown = texts(view.definition.blocks);
    expect(shown.indexOf("Waiting for your approval")).toBeLessThan(shown.indexOf("My orders"));
    expect(shown).toContain("HOM-1");
    expect(shown).toContain("approve_order");

    await h.requests.appHomeOpened({ userId: AGENT });
    expect(texts((await home(AGENT, "My orders")).definition.blocks)).not.toContain(
      "Waiting for your approval",
    );
    await h.requests.appHomeOpened({ userId: OUTSIDER });
    expect(texts((await home(OUTSIDER, "My orders")).definition.blocks)).not.toContain(
      "Waiting for your approval",
    );

    await h.user(BOSS).clickInView(view.id, { actionId: "approve_order" });
    const placed = await h.waitForOrder((o) => o.id === order.id && o.status === "received", "placement");
    expect(placed.approval?.decidedBy).toBe(BOSS);
    await home(BOSS, "HOM-1", false);

    // The requester's Home shows who approved it, and when.
    await h.requests.appHomeOpened({ userId: AGENT });
    await home(AGENT, `Approved by <@${BOSS}>${decidedOn(placed)}`);
  });

  it("refreshes an approver's Home when an order starts, and stops, waiting for them", async () => {
    const order = await orderFor(h, "HOM-2");
    // Nobody opened the tab again: the approval request itself refreshed it.
    await home(BOSS, "HOM-2");
    const dm = await h.fake.waitFor(() => approvalDmFor(h, MANAGER, "HOM-2"), { what: "the manager's DM" });
    await clickApproval(h, MANAGER, dm, "approve_order");
    await h.waitForOrder((o) => o.id === order.id && o.status === "received", "placement");
    await home(BOSS, "HOM-2", false);
  });

  it("counts approvals requested and decided, and the time to decision", async () => {
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/order_desk_approvals_requested_total\{profile="Acme EU"\} 2/);
    expect(text).toMatch(/order_desk_approvals_decided_total\{outcome="approved",profile="Acme EU"\} 2/);
    expect(text).toMatch(/order_desk_approval_decision_seconds_count\{outcome="approved"\} 2/);
  });
});
