/**
 * A click after the approval request's `expireAt` is refused even when the expiry job has not run yet (it runs by
 * the queue's clock, and may be late): the app's clock decides. Over the real wire (signed requests, the fake Slack,
 * a scripted supplier); the app's clock is injected and moved past the expiry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { approvalConfig, approvalDmFor, clickApproval, orderFor } from "./support/approvals.ts";
import { type Harness, MANAGER, startHarness } from "./support/harness.ts";

const DAY_MS = 24 * 3_600_000;

describe("an approval click after the request expired", () => {
  let supplier: StubSupplier;
  let h: Harness;
  let aheadMs = 0;

  beforeAll(async () => {
    supplier = await startStubSupplier([success()]);
    h = await startHarness({
      supplierUrl: supplier.baseUrl,
      apiKey: TEST_KEY,
      config: approvalConfig([{ deliveryAt: "Home" }], { expireAfterDays: 1 }),
      now: () => new Date(Date.now() + aheadMs),
    });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  it("is refused before the expiry job ran, and nothing is decided or placed", async () => {
    const order = await orderFor(h, "EXP-1");
    const dm = await h.fake.waitFor(() => approvalDmFor(h, MANAGER, "EXP-1"), { what: "MANAGER's DM" });
    aheadMs = DAY_MS + 60_000;

    const before = h.fake.responses().length;
    await clickApproval(h, MANAGER, dm, "approve_order");
    const answer = await h.fake.waitFor(
      () =>
        h.fake
          .responses()
          .slice(before)
          .find((r) => JSON.stringify(r.body).includes("expired without a decision")),
      { what: "the refusal" },
    );
    expect(answer.body).toMatchObject({ response_type: "ephemeral" });
    const reject = await clickApproval(h, MANAGER, dm, "reject_order");
    await h.fake.waitFor(
      () =>
        h.fake
          .responses()
          .slice(before)
          .filter((r) => JSON.stringify(r.body).includes("expired without a decision")).length >= 2 ||
        undefined,
      { what: "the refusal of Reject" },
    );
    expect(h.fake.views({ openedWithTrigger: reject.triggerId })).toEqual([]);
    const now = await h.order(order.id);
    expect(now.status).toBe("awaiting_approval");
    expect(now.approval?.decidedBy).toBeNull();
    expect(supplier.requests).toHaveLength(0);
  });
});
