/**
 * Spend test helpers: the example customer file with prices, the approval block by which MANAGER alone decides,
 * many modal submissions at once, and what the budget tests read back (orders counted, budget alert jobs, the
 * admins' alerts, an order's over-budget line, the admin's Home with the month's spend, the month's export).
 */
import type { ApprovalConfig, ApprovalRule } from "../../../src/config/approval-schema.ts";
import type { CustomerConfig } from "../../../src/config/customer.ts";
import { QUEUES } from "../../../src/jobs/queues.ts";
import { OVER_BUDGET_REPLY_TYPE } from "../../../src/orders/budget/alert-job.ts";
import type { FakeMessage, FakeView, SlackUser } from "../../../tools/fake-slack/index.ts";
import { parseCsv } from "../../helpers/csv.ts";
import {
  ADMIN,
  exampleConfig,
  type Harness,
  HELPDESK,
  MANAGER,
  openOrderModal,
  submitOrderForm,
} from "./harness.ts";

/** In `admins` of the example customer file. */
export const IT_LEAD = "U0ITLEAD";
/** The admin as a person in the workspace (`users` of the harness). */
export const IT_LEAD_USER = { id: IT_LEAD, name: "ivy", realName: "Ivy Lead" };

/** The example customer file in euros: each item at its price in `prices`, any other at `otherwise`. */
export function pricedConfig(prices: Record<string, string> = {}, otherwise = "1000"): CustomerConfig {
  const config = exampleConfig();
  config.currency = "EUR";
  for (const item of config.catalog) item.price = prices[item.itemNumber] ?? otherwise;
  return config;
}

/** MANAGER alone decides when a rule of `when` matches (reminded after 24 hours, expiring after 7 days). */
export function managerApproval(when: ApprovalRule[]): ApprovalConfig {
  return { approvers: [MANAGER], approverGroups: [], when, remindAfterHours: 24, expireAfterDays: 7 };
}

/** The modal's first line with `n` units. */
export const units = (n: number) => ({ line_0_quantity: String(n) });

/** How many orders with a ticket `<prefix>-…` there are that match `where` (SQL on `orders`). */
export async function countOrders(h: Harness, prefix: string, where = "true"): Promise<number | undefined> {
  const { rows } = await h.store.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM orders WHERE customer_reference LIKE $1 AND (${where})`,
    [`${prefix}-%`],
  );
  return rows[0]?.n;
}

/**
 * `count` modals for the tickets `<prefix>-1` … opened at once, then all submitted at once, each for one unit of
 * the first line for "Acme EU"; the submissions in ticket order.
 */
export async function submitAtOnce(h: Harness, prefix: string, count: number) {
  const views = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const ticket = `${prefix}-${i + 1}`;
      return { ticket, view: await openOrderModal(h, ticket) };
    }),
  );
  return Promise.all(views.map(({ ticket, view }) => submitOrderForm(h, view.id, ticket, units(1))));
}

/** The states of the `budget-alert` jobs, retries included. */
export async function budgetAlertStates(h: Harness): Promise<string[]> {
  const { rows } = await h.store.query<{ state: string }>(
    `SELECT state FROM ${h.jobs.schema}.job WHERE name = $1`,
    [QUEUES.budgetAlert],
  );
  return rows.map((j) => j.state);
}

/** The admin channel's messages whose text has each of `words`. */
export function adminAlerts(h: Harness, ...words: string[]): FakeMessage[] {
  return h.fake.topLevel(ADMIN).filter((m) => words.every((w) => m.text.includes(w)));
}

/** The over-budget lines (by their metadata's event type) in the thread of the message at `ts`. */
export function overBudgetLines(h: Harness, channel: string, ts: string): FakeMessage[] {
  return h.fake
    .thread(channel, ts)
    .filter(
      (m) => (m.metadata as { event_type?: string } | undefined)?.event_type === OVER_BUDGET_REPLY_TYPE,
    );
}

/** The admin opens App Home: the Home once it shows the month's spend. */
export async function adminHomeWithSpend(h: Harness): Promise<FakeView> {
  await h.requests.appHomeOpened({ userId: IT_LEAD });
  return h.fake.waitFor(
    () => {
      const v = h.fake.homeView(IT_LEAD);
      return v && JSON.stringify(v.definition.blocks).includes("Spend this month") ? v : undefined;
    },
    { what: "the admin's Home with spend" },
  );
}

/** `/order <text>` typed by `user` in #helpdesk, and the first answer on a response URL after it. */
export async function answerTo(h: Harness, user: SlackUser, text: string, what: string) {
  const before = h.fake.responses().length;
  await user.runCommand({ channel: HELPDESK, command: "/order", text });
  return h.fake.waitFor(() => h.fake.responses()[before], { what });
}

/**
 * Every order moved into October 2026 and that month exported by the admin (`/order export 2026-10`): the rows
 * of the CSV file shared, its header first.
 */
export async function exportedOctober(h: Harness): Promise<string[][]> {
  await h.store.query("UPDATE orders SET created_at = '2026-10-15T12:00:00Z'");
  await answerTo(h, h.user(IT_LEAD), "export 2026-10", "the export's answer");
  const file = await h.fake.waitFor(
    () =>
      h.fake.files().find((f) => f.filename === "orders-2026-10.csv" && f.completed && f.shares.length > 0),
    { what: "the export shared", timeoutMs: 15_000 },
  );
  return parseCsv(file.content?.toString("utf8") ?? "");
}
