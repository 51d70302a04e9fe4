import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OnExceed } from "../../src/config/budget-schema.ts";
import { createCustomer } from "../../src/config/catalog.ts";
import type { CustomerConfig, Profile } from "../../src/config/customer-schema.ts";
import { createJobs, type Jobs, QUEUES } from "../../src/jobs/index.ts";
import type { Authorizer } from "../../src/orders/authorization.ts";
import { budgetMonth } from "../../src/orders/budget/month.ts";
import type { OrderDraft } from "../../src/orders/draft.ts";
import {
  acceptSubmission,
  type OrderOrigin,
  type SubmitDeps,
  type SubmitResult,
  storeSubmission,
} from "../../src/orders/submit.ts";
import type { Store } from "../../src/store/db.ts";
import { openTestStore, TEST_BACKENDS } from "../helpers/db.ts";
import { acmeUsDraft } from "../helpers/drafts.ts";
import { exampleConfig } from "../helpers/slack-world.ts";

const HELPDESK = "C0HELPDESK";
const everyone: Authorizer = { check: async () => ({ allowed: true }), isListed: () => true };

/** A customer whose "Acme US" profile is renamed (its own budget rows in a shared store) and has a budget. */
function budgetCustomer(onExceed: OnExceed, monthly: string, extra: { timeZone?: string } = {}) {
  const config = exampleConfig() as CustomerConfig & { currency?: string; timeZone?: string };
  const name = `Budget ${randomUUID().slice(0, 8)}`;
  const profile = config.profiles[0] as Profile;
  profile.name = name;
  profile.budget = { monthly, onExceed };
  profile.approval =
    onExceed === "approve"
      ? {
          approvers: ["U0BOSS001"],
          approverGroups: [],
          when: [{ overBudget: true }],
          remindAfterHours: 24,
          expireAfterDays: 7,
        }
      : undefined;
  config.currency = "EUR";
  for (const item of config.catalog) item.price = "50";
  if (extra.timeZone) config.timeZone = extra.timeZone;
  return { customer: createCustomer(config), name };
}

function origin(): OrderOrigin {
  return {
    source: "command",
    requestedBy: "U0AGENT01",
    idempotencyKey: `view:${randomUUID()}`,
    channelId: HELPDESK,
  };
}

describe.each(TEST_BACKENDS)("monthly budgets on %s", (backend) => {
  let store: Store;
  let jobs: Jobs;

  beforeAll(async () => {
    store = await openTestStore(backend);
    jobs = createJobs({ store, pollIntervalMs: 60_000 });
    await jobs.start();
  });

  afterAll(async () => {
    await jobs.stop({ graceMs: 100 });
    await store.close();
  });

  function deps(customer: ReturnType<typeof budgetCustomer>["customer"], at = new Date()): SubmitDeps {
    return { store, jobs, customer, authorizer: everyone, now: () => at };
  }

  /** Submits an order of the profile whose total is `total` (in units of the price, 50). */
  async function submit(d: SubmitDeps, name: string, total: string, draft: Partial<OrderDraft> = {}) {
    const quantity = String(Number(total) / 50);
    const lines = [{ itemNumber: "LAP-14-PRO", quantity, comment: "" }];
    const accepted = await acceptSubmission(
      d,
      acmeUsDraft({ profile: name, ticket: "ABC-123", lines, ...draft }),
      origin(),
    );
    if ("status" in accepted) throw new Error(JSON.stringify(accepted));
    expect(accepted.pricing?.total.toString()).toBe(total);
    return storeSubmission(d, accepted);
  }

  const statuses = (results: SubmitResult[]) =>
    results.map((r) => (r.status === "queued" ? r.order.status : r.status)).sort();

  async function budgetJobs(filter: string, value: string) {
    const { rows } = await store.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM ${jobs.schema}.job WHERE name = $1 AND data->>${filter} = $2`,
      [QUEUES.budgetAlert, value],
    );
    return rows.map((r) => r.data);
  }

  it("refuse: of 20 orders submitted at once against a budget that fits 5, exactly 5 are accepted", async () => {
    const { customer, name } = budgetCustomer("refuse", "1000");
    const results = await Promise.all(Array.from({ length: 20 }, () => submit(deps(customer), name, "200")));
    expect(statuses(results)).toEqual([...Array(5).fill("queued"), ...Array(15).fill("invalid")].sort());
    const refused = results.find((r) => r.status === "invalid");
    expect(refused).toMatchObject({
      errors: { lines: [expect.stringContaining("€0.00 is left")] },
    });
    expect(refused?.status === "invalid" ? refused.errors.lines?.[0] : "").toContain("budget of €1,000.00");
  });

  it("approve: of 20 at once against a budget that fits 5, 5 are queued and 15 wait for approval", async () => {
    const { customer, name } = budgetCustomer("approve", "1000");
    const results = await Promise.all(Array.from({ length: 20 }, () => submit(deps(customer), name, "200")));
    expect(statuses(results)).toEqual(
      [...Array(5).fill("queued"), ...Array(15).fill("awaiting_approval")].sort(),
    );
    const waiting = results.flatMap((r) => (r.status === "queued" && r.order.approval ? [r.order] : []));
    expect(waiting).toHaveLength(15);
    expect(waiting[0]?.approval).toMatchObject({
      rule: "overBudget",
      budget: { monthly: "1000", currency: "EUR" },
    });
  });

  it("warn: all 20 are placed; each one over the budget gets its thread line; the admins hear of 80 %, 100 % and the first one over once each", async () => {
    const { customer, name } = budgetCustomer("warn", "1000");
    const results = await Promise.all(Array.from({ length: 20 }, () => submit(deps(customer), name, "200")));
    expect(statuses(results)).toEqual(Array(20).fill("queued"));
    const ids = results.map((r) => (r.status === "queued" ? r.order.id : ""));
    const over = (await Promise.all(ids.map((id) => budgetJobs("'orderId'", id)))).flat();
    expect(over).toHaveLength(15);
    const thresholds = await budgetJobs("'profile'", name);
    expect(thresholds.map((t) => t.percent).sort()).toEqual([100, 80]);
    expect(thresholds.find((t) => t.percent === 80)).toMatchObject({ spent: "800.0000", monthly: "1000" });
    // Claimed in the store, once per profile, month and kind: the first order over the budget tells the admins.
    const { rows } = await store.query<{ kind: string; order_id: string }>(
      "SELECT kind, order_id FROM budget_alerts WHERE profile = $1 ORDER BY kind",
      [name],
    );
    expect(rows.map((r) => r.kind)).toEqual(["100", "80", "over"]);
    expect(over.map((o) => o.orderId)).toContain(rows[2]?.order_id);
  });

  it("a rejected, expired or failed order releases its amount; a cancelled one too", async () => {
    const { customer, name } = budgetCustomer("refuse", "500");
    const first = await submit(deps(customer), name, "300");
    const second = await submit(deps(customer), name, "200");
    expect((await submit(deps(customer), name, "100")).status).toBe("invalid");
    for (const status of ["rejected_by_approver", "approval_expired", "failed", "cancelled"]) {
      const released = first.status === "queued" ? first.order.id : "";
      await store.query("UPDATE orders SET status = $2 WHERE id = $1", [released, status]);
      const next = await submit(deps(customer), name, "250");
      expect(next.status).toBe("queued");
      // The new order takes what was released: it goes the same way for the next status.
      await store.query("UPDATE orders SET status = 'failed' WHERE id = $1", [
        next.status === "queued" ? next.order.id : "",
      ]);
      await store.query("UPDATE orders SET status = 'queued' WHERE id = $1", [released]);
    }
    expect(second.status).toBe("queued");
  });

  it("counts an order in the calendar month of the customer's time zone", async () => {
    const { customer, name } = budgetCustomer("refuse", "500", { timeZone: "America/New_York" });
    // 23:30 on 31 January in New York is 04:30 on 1 February UTC: still January there.
    const lateJanuary = new Date("2026-02-01T04:30:00Z");
    expect(budgetMonth(lateJanuary, "America/New_York").label).toBe("2026-01");
    expect((await submit(deps(customer, lateJanuary), name, "500")).status).toBe("queued");
    expect((await submit(deps(customer, new Date("2026-02-01T04:59:59Z")), name, "50")).status).toBe(
      "invalid",
    );
    // Midnight in New York: February, a new month's budget.
    const february = await submit(deps(customer, new Date("2026-02-01T05:00:00Z")), name, "500");
    expect(february.status).toBe("queued");
    const { rows } = await store.query(
      "SELECT budget_month FROM orders WHERE profile = $1 ORDER BY budget_month",
      [name],
    );
    expect(rows.map((r) => r.budget_month)).toEqual(["2026-01", "2026-02"]);
  });

  it("tells 80 % and 100 % once each per month, however many orders cross them", async () => {
    const { customer, name } = budgetCustomer("warn", "1000");
    const at = new Date("2026-06-15T12:00:00Z");
    for (const total of ["500", "300", "100", "100", "50"]) await submit(deps(customer, at), name, total);
    const july = new Date("2026-07-01T00:00:00Z");
    await submit(deps(customer, july), name, "900");
    const alerts = await budgetJobs("'profile'", name);
    expect(alerts.map((a) => `${a.month} ${a.percent}`).sort()).toEqual([
      "2026-06 100",
      "2026-06 80",
      "2026-07 80",
    ]);
  });
});
