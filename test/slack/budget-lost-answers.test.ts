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
import { QUEUES } from "../../src/jobs/queues.ts";
import { OVER_BUDGET_REPLY_TYPE } from "../../src/orders/budget/alert-job.ts";
import type { FaultScope } from "../../tools/fake-slack/index.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { until } from "../webhooks/support.ts";
import { orderFor } from "./support/approvals.ts";
import { ADMIN, exampleConfig, type Harness, HELPDESK, startHarness } from "./support/harness.ts";

/** Longer than the client's timeout (the harness's 5 s): the app has given up on the call by then. */
const LATE_MS = 8_000;

const MODES = ["lost_answer", "late_answer"] as const;

/** Every item at €1,000; "Acme EU" has a €5,000 month that warns, and needs no approval. */
function budgetConfig(): CustomerConfig {
  const config = exampleConfig() as CustomerConfig & { currency?: string };
  config.currency = "EUR";
  for (const item of config.catalog) item.price = "1000";
  config.profiles[0]!.budget = { monthly: "5000", onExceed: "warn" };
  return config;
}

const units = (n: number) => ({ line_0_quantity: String(n) });

describe.each(MODES)("budget alerts whose answer Slack lost (%s)", (mode) => {
  let supplier: StubSupplier;
  let h: Harness;

  beforeAll(async () => {
    supplier = await startStubSupplier(Array.from({ length: 4 }, () => success()));
    h = await startHarness({ supplierUrl: supplier.baseUrl, apiKey: TEST_KEY, config: budgetConfig() });
  });

  afterAll(async () => {
    await h?.close();
    await supplier?.close();
  });

  /** Slack takes the next matching chat.postMessage, and its answer never reaches the app in time. */
  function interruptNextPost(scope: FaultScope): void {
    if (mode === "lost_answer") h.fake.loseAnswerNext("chat.postMessage", 1, scope);
    else h.fake.answerLateNext("chat.postMessage", LATE_MS, 1, scope);
  }

  const alerts = (title: string) =>
    h.fake.topLevel(ADMIN).filter((m) => m.text.includes(title) && m.text.includes("Acme EU"));

  /** Every budget-alert job completed (retries included): none failed, none left to run. */
  const alertJobsDone = () =>
    until(
      async () =>
        (
          await h.store.query<{ state: string }>(`SELECT state FROM ${h.jobs.schema}.job WHERE name = $1`, [
            QUEUES.budgetAlert,
          ])
        ).rows.map((j) => j.state),
      (states) => states.length > 0 && states.every((s) => s === "completed"),
      "every budget alert job completed",
      30_000,
    );

  /** The admin alerts Slack was asked to post with this title. */
  const postsOf = (title: string) =>
    h.fake
      .calls("chat.postMessage")
      .filter((c) => c.args.channel === ADMIN && String(c.args.text).includes(title));

  it("tells the admins of 80 % once: the retry finds the alert Slack took", async () => {
    interruptNextPost({ channel: ADMIN, text: "Monthly budget 80 % used" });
    await orderFor(h, "BLA-1", units(4));
    await h.fake.waitFor(() => alerts("Monthly budget 80 % used").length > 0 || undefined, {
      what: "the 80 % alert",
      timeoutMs: 15_000,
    });
    await alertJobsDone();
    expect(alerts("Monthly budget 80 % used")).toHaveLength(1);
    expect(postsOf("Monthly budget 80 % used")).toHaveLength(1);
  });

  it("tells the admins of the first order over the budget once: the retry finds the alert Slack took", async () => {
    interruptNextPost({ channel: ADMIN, text: "Order placed over budget" });
    await orderFor(h, "BLA-2", units(2));
    await h.fake.waitFor(() => alerts("Order placed over budget").length > 0 || undefined, {
      what: "the over-budget alert",
      timeoutMs: 15_000,
    });
    await alertJobsDone();
    expect(alerts("Order placed over budget")).toHaveLength(1);
    expect(postsOf("Order placed over budget")).toHaveLength(1);
    expect(alerts("Monthly budget 80 % used")).toHaveLength(1);
  });

  it("puts the line in the thread of an order placed over the budget once: the retry finds the line Slack took", async () => {
    const line = "Over budget: with this order";
    interruptNextPost({ channel: HELPDESK, text: line });
    const order = await orderFor(h, "BLA-3", units(1));
    const shown = await h.waitForOrder(
      (o) => o.id === order.id && o.slackMessageTs !== null,
      "BLA-3's message",
      15_000,
    );
    const lines = () =>
      h.fake
        .thread(HELPDESK, shown.slackMessageTs ?? "")
        .filter(
          (m) => (m.metadata as { event_type?: string } | undefined)?.event_type === OVER_BUDGET_REPLY_TYPE,
        );
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
