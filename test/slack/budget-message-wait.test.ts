/**
 * The thread line of an order placed over its budget waits for the order's message, at most `threadWaitMs`, and the
 * admins are told then, with or without it. That bound is a wait, measured on the wall clock as the queue measures
 * the job's age, whatever the app's clock says: here it runs an hour behind (as the demo's world clock may), and
 * Slack refuses the order's message in its channel. Over the real wire (signed requests, the fake Slack Web API, a
 * scripted supplier).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomerConfig } from "../../src/config/customer.ts";
import { success } from "../supplier/support/stub-supplier.ts";
import { orderFor } from "./support/approvals.ts";
import { HELPDESK, type StubbedHarness, startOnStubSupplier } from "./support/harness.ts";
import { adminAlerts, pricedConfig } from "./support/spend.ts";

const HOUR = 3_600_000;

/** Every item at €1,000; "Acme US" has a €2,000 month that warns. */
function budgetConfig(): CustomerConfig {
  const config = pricedConfig();
  config.profiles[1]!.budget = { monthly: "2000", onExceed: "warn" };
  return config;
}

describe("a budget alert waiting for the order's message", () => {
  let h: StubbedHarness;

  beforeAll(async () => {
    h = await startOnStubSupplier([success()], {
      config: budgetConfig(),
      now: () => new Date(Date.now() - HOUR),
      budgetThreadWaitMs: 1000,
    });
  });

  afterAll(() => h?.close());

  it("tells the admins once the wait is over by the wall clock, though the app's clock is an hour behind", async () => {
    // Slack takes nothing in #helpdesk for a long while: the order's message is not posted.
    h.fake.failNext("chat.postMessage", "internal_error", 1000, { channel: HELPDESK });
    await orderFor(h, "WAIT-1", { profile: "Acme US", line_0_quantity: "3" });
    const alert = await h.fake.waitFor(() => adminAlerts(h, "Order placed over budget")[0], {
      timeoutMs: 10_000,
      what: "the admins told of the order over budget",
    });
    expect(alert.text).toContain('took "Acme US" to €3,000.00');
    h.fake.clearFaults();
  });
});
