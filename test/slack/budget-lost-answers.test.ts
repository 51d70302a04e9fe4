/**
 * Budget alerts told once although Slack took the alert and its answer never came back: the connection dropped
 * after Slack stored it (`lost_answer`), or Slack answered after the client's timeout (`late_answer`). The
 * `budget-alert` job is retried; the alert was recorded as attempted before Slack was called, so the retry looks
 * for it in the admin channel (by its key in the alert's metadata) and does not post it again: the 80 % alert, and
 * the first order of the month placed over a budget that warns. The line in the thread of an order placed over the
 * budget is found in the thread (by the order's id in its metadata) and not posted again either. Over the real wire
 * (the fake Slack Web API), on the store of DATABASE_URL or PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomerConfig } from "../../src/config/customer.ts";
import { successes } from "../supplier/support/stub-supplier.ts";
import { until } from "../webhooks/support.ts";
import { orderFor } from "./support/approvals.ts";
import { ADMIN, HELPDESK, type StubbedHarness, startOnStubSupplier } from "./support/harness.ts";
import { interruptNextPost, LOST_ANSWER_MODES } from "./support/lost-answers.ts";
import { adminAlerts, budgetAlertStates, overBudgetLines, pricedConfig, units } from "./support/spend.ts";

/** Every item at €1,000; "Acme EU" has a €5,000 month that warns, and needs no approval. */
function budgetConfig(): CustomerConfig {
  const config = pricedConfig();
  config.profiles[0]!.budget = { monthly: "5000", onExceed: "warn" };
  return config;
}

describe.each(LOST_ANSWER_MODES)("budget alerts whose answer Slack lost (%s)", (mode) => {
  let h: StubbedHarness;

  beforeAll(async () => {
    h = await startOnStubSupplier(successes(4), { config: budgetConfig() });
  });

  afterAll(() => h?.close());

  const alerts = (title: string) => adminAlerts(h, title, "Acme EU");

  /** Every budget-alert job completed (retries included): none failed, none left to run. */
  const alertJobsDone = () =>
    until(
      () => budgetAlertStates(h),
      (states) => states.length > 0 && states.every((s) => s === "completed"),
      "every budget alert job completed",
      30_000,
    );

  /** The admin alerts Slack was asked to post with this title. */
  const postsOf = (title: string) =>
    h.fake
      .calls("chat.postMessage")
      .filter((c) => c.args.channel === ADMIN && String(c.args.text).includes(title));

  /**
   * Orders `quantity` units for `ticket`, and Slack's answer to the admin alert `title` it brings is lost; resolves
   * once the alert is in the channel and every alert job ran to the end.
   */
  async function orderLosingAlert(title: string, ticket: string, quantity: number, what: string) {
    interruptNextPost(h, mode, { channel: ADMIN, text: title });
    await orderFor(h, ticket, units(quantity));
    await h.fake.waitFor(() => alerts(title).length > 0 || undefined, { what, timeoutMs: 15_000 });
    await alertJobsDone();
  }

  it("tells the admins of 80 % once: the retry finds the alert Slack took", async () => {
    await orderLosingAlert("Monthly budget 80 % used", "BLA-1", 4, "the 80 % alert");
    expect(alerts("Monthly budget 80 % used")).toHaveLength(1);
    expect(postsOf("Monthly budget 80 % used")).toHaveLength(1);
  });

  it("tells the admins of the first order over the budget once: the retry finds the alert Slack took", async () => {
    await orderLosingAlert("Order placed over budget", "BLA-2", 2, "the over-budget alert");
    expect(alerts("Order placed over budget")).toHaveLength(1);
    expect(postsOf("Order placed over budget")).toHaveLength(1);
    expect(alerts("Monthly budget 80 % used")).toHaveLength(1);
  });

  it("puts the line in the thread of an order placed over the budget once: the retry finds the line Slack took", async () => {
    const line = "Over budget: with this order";
    interruptNextPost(h, mode, { channel: HELPDESK, text: line });
    const order = await orderFor(h, "BLA-3", units(1));
    const shown = await h.waitForOrder(
      (o) => o.id === order.id && o.slackMessageTs !== null,
      "BLA-3's message",
      15_000,
    );
    const lines = () => overBudgetLines(h, HELPDESK, shown.slackMessageTs ?? "");
    await h.fake.waitFor(() => lines().length > 0 || undefined, {
      what: "the over-budget line in BLA-3's thread",
      timeoutMs: 15_000,
    });
    await alertJobsDone();
    // The job ran again (its first run never got Slack's answer) and read the thread instead of posting again.
    expect(h.fake.calls("conversations.replies").some((c) => c.args.ts === shown.slackMessageTs)).toBe(true);
    expect(lines()).toHaveLength(1);
    expect(lines()[0]?.text).toContain(
      "has spent €7,000.00 this month, over its monthly budget of €5,000.00",
    );
    expect(
      h.fake
        .calls("chat.postMessage")
        .filter((c) => c.args.thread_ts === shown.slackMessageTs && String(c.args.text).includes(line)),
    ).toHaveLength(1);
    // Already over this month: no other alert for the admins.
    expect(alerts("Order placed over budget")).toHaveLength(1);
  });
});
