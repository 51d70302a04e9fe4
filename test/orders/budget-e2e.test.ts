/**
 * Budgets end to end, on every store, over the real wire: Order Desk (its composition root) with an injected clock,
 * orders placed from Slack through the sandbox, the admin channel and the threads in the fake Slack, `/metrics`
 * over HTTP. A customer in Tokyo: an order at 23:30 on a month's last day there counts in that month, one at 00:30
 * on the 1st in the next (both fall on the last day in UTC). `onExceed: warn` places an order over the budget with
 * one line in its thread; the admins are told once per profile, month and threshold (80 %, 100 %, the first order
 * over), also after a restart, which starts with nothing in memory.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import type { OrderDesk } from "../../src/main.ts";
import { OVER_BUDGET_REPLY_TYPE } from "../../src/orders/budget/alert-job.ts";
import { EXAMPLE_DELIVERY } from "../../tools/example-form.ts";
import { EXAMPLE_CUSTOMER_CONFIG, startWorld, type World } from "../../tools/world.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { parsePrometheusText, sampleValue } from "../ops/prometheus.ts";
import { type ChildStore, freshDatabase, pgliteChildStore } from "../reliability/harness/stores.ts";
import { until } from "../webhooks/support.ts";

const HELPDESK = "C0HELPDESK";
const ADMIN_CHANNEL = "C0ITADMIN";
const AGENT = "U0AGENT01";
const MINUTE = 60_000;
const TOKYO_OFFSET_MS = 9 * 60 * MINUTE;
const silent = pino({ level: "silent" });

/** The example file with every item at €1,000, a €5,000 month for "Acme EU" that warns, and the Tokyo zone. */
async function budgetConfig(dir: string): Promise<string> {
  const doc = parseDocument(await readFile(EXAMPLE_CUSTOMER_CONFIG, "utf8"));
  doc.set("currency", "EUR");
  doc.set("timeZone", "Asia/Tokyo");
  const catalog = doc.get("catalog") as { items: { set(key: string, value: unknown): void }[] };
  for (const item of catalog.items) item.set("price", 1000);
  doc.setIn(["profiles", 0, "budget"], doc.createNode({ monthly: 5000, onExceed: "warn" }));
  const file = join(dir, "order-desk.config.yml");
  await writeFile(file, doc.toString());
  return file;
}

/** Midnight on the 1st of the month before this one, in Tokyo (UTC+9 all year): always in the past. */
function lastMonthStartInTokyo(): { at: number; before: string; after: string } {
  const tokyo = new Date(Date.now() + TOKYO_OFFSET_MS);
  const y = tokyo.getUTCFullYear();
  const m = tokyo.getUTCMonth(); // this month, 0-based; the boundary is the start of month m - 1
  const at = Date.UTC(y, m - 1, 1) - TOKYO_OFFSET_MS;
  const label = (d: Date) => d.toISOString().slice(0, 7);
  return {
    at,
    before: label(new Date(Date.UTC(y, m - 2, 1))),
    after: label(new Date(Date.UTC(y, m - 1, 1))),
  };
}

interface DeskOrder {
  id: string;
  channel: string;
  ts: string;
  budgetMonth: string;
  status: string;
}

describe.each(TEST_BACKENDS)("budgets end to end (%s)", (backend) => {
  let world: World;
  let store: ChildStore;
  let desk: OrderDesk;
  let dir: string;
  const boundary = lastMonthStartInTokyo();
  /** Order Desk's clock: the real one moved to `target` when it was set, running on from there. */
  let offsetMs = 0;
  const setClock = (target: number) => {
    offsetMs = target - Date.now();
  };
  const now = () => new Date(Date.now() + offsetMs);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "od-budget-"));
    store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
    world = await startWorld({
      speed: 1000,
      seed: `budget-${backend}`,
      customerConfig: await budgetConfig(dir),
      sandbox: { logger: silent },
      env: { ...store.env, WEBHOOK_SETTLE_MS: "0", ORDER_DESK_ENV: "development" },
      slack: {
        users: [{ id: AGENT, name: "alice", realName: "Alice Agent" }],
        channels: [
          { id: HELPDESK, name: "helpdesk" },
          { id: ADMIN_CHANNEL, name: "it-admin" },
        ],
      },
    });
    desk = await world.startDesk({ logger: silent, now });
  }, 60_000);

  afterAll(async () => {
    await world?.close();
    await store?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** An order of `laptops` laptops (€1,000 each) from the modal, once it is placed and its message posted. */
  async function order(ticket: string, laptops: number): Promise<DeskOrder> {
    const alice = world.user(AGENT);
    const { triggerId } = await alice.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    const view = await alice.openedModal(triggerId);
    const submitted = await alice.submit(view.id, {
      ...EXAMPLE_DELIVERY,
      profile: "Acme EU",
      line_0_quantity: String(laptops),
    });
    expect(submitted.outcome.outcome).toBe("closed");
    return (await until(
      async () => {
        const { rows } = await desk.store.query(
          `SELECT id, slack_channel_id AS channel, slack_message_ts AS ts, budget_month AS "budgetMonth", status
             FROM orders WHERE customer_reference = $1`,
          [ticket],
        );
        return rows[0] as DeskOrder | undefined;
      },
      (o) => o?.ts != null && o.status !== "queued" && o.status !== "placing",
      `order ${ticket} placed and shown`,
      30_000,
    )) as DeskOrder;
  }

  const overBudgetLines = (o: DeskOrder) =>
    world.fake
      .thread(o.channel, o.ts)
      .filter(
        (m) => (m.metadata as { event_type?: string } | undefined)?.event_type === OVER_BUDGET_REPLY_TYPE,
      );

  /** The budget alerts in the admin channel, as `<title> <month>`. */
  const budgetAlerts = () =>
    world.fake.topLevel(ADMIN_CHANNEL).flatMap((m) => {
      const text = m.versions.at(-1)?.text ?? m.text;
      const title = ["Monthly budget 80 % used", "Monthly budget used up", "Order placed over budget"].find(
        (t) => text.includes(t),
      );
      return title ? [`${title} ${/\d{4}-\d{2}/.exec(text)?.[0]}`] : [];
    });

  /** Every budget-alert job has run (done or given up): what the admins were told is all they will be. */
  async function alertsSettled(): Promise<void> {
    await until(
      async () =>
        (
          await desk.store.query(
            `SELECT count(*)::int AS n FROM ${desk.jobs.schema}.job
              WHERE name = 'budget-alert' AND state NOT IN ('completed', 'failed', 'cancelled')`,
          )
        ).rows[0]?.n,
      (n) => n === 0,
      "the budget alerts sent",
    );
  }

  async function gauges(): Promise<{ spend: number | undefined; monthly: number | undefined }> {
    const response = await fetch(`${desk.opsUrl}/metrics`);
    expect(response.status).toBe(200);
    const e = parsePrometheusText(await response.text());
    const labels = { profile: "Acme EU", currency: "EUR" };
    return {
      spend: sampleValue(e, "order_desk_budget_spend", labels),
      monthly: sampleValue(e, "order_desk_budget_monthly", labels),
    };
  }

  it("counts orders at 23:30 and 00:30 Tokyo time in their own months; warn places over the budget with one thread line, the admins told once", {
    timeout: 120_000,
  }, async () => {
    setClock(boundary.at - 30 * MINUTE);
    const a = await order(`BGT-1${backend.length}`, 4);
    const b = await order(`BGT-2${backend.length}`, 2);
    const c = await order(`BGT-3${backend.length}`, 1);
    for (const o of [a, b, c]) expect(o.budgetMonth).toBe(boundary.before);
    expect(await gauges()).toEqual({ spend: 7000, monthly: 5000 });

    setClock(boundary.at + 30 * MINUTE);
    const d = await order(`BGT-4${backend.length}`, 4);
    expect(d.budgetMonth).toBe(boundary.after);
    // The gauges read the month of the clock: the new one has only d.
    expect(await gauges()).toEqual({ spend: 4000, monthly: 5000 });

    await until(
      async () => [overBudgetLines(b).length, overBudgetLines(c).length],
      (n) => n[0] === 1 && n[1] === 1,
      "the over-budget lines in b's and c's threads",
    );
    await alertsSettled();
    expect(overBudgetLines(a)).toHaveLength(0);
    expect(overBudgetLines(d)).toHaveLength(0);
    expect(overBudgetLines(b)[0]?.text).toContain(
      "€6,000.00 this month, over its monthly budget of €5,000.00",
    );
    expect(budgetAlerts().sort()).toEqual(
      [
        `Monthly budget 80 % used ${boundary.before}`,
        `Order placed over budget ${boundary.before}`,
        `Monthly budget 80 % used ${boundary.after}`,
      ].sort(),
    );
  });

  it("after a restart, nothing is told twice: another order over last month's budget gets its line only", {
    timeout: 120_000,
  }, async () => {
    await desk.stop();
    desk = await world.startDesk({ logger: silent, now });
    setClock(boundary.at - 20 * MINUTE);
    const e = await order(`BGT-5${backend.length}`, 1);
    expect(e.budgetMonth).toBe(boundary.before);
    setClock(boundary.at + 40 * MINUTE);
    const f = await order(`BGT-6${backend.length}`, 1);
    const g = await order(`BGT-7${backend.length}`, 1);
    await until(
      async () => [overBudgetLines(e).length, overBudgetLines(g).length],
      (n) => n[0] === 1 && n[1] === 1,
      "the over-budget lines in e's and g's threads",
    );
    await alertsSettled();
    expect(overBudgetLines(f)).toHaveLength(0);
    expect(budgetAlerts().sort()).toEqual(
      [
        `Monthly budget 80 % used ${boundary.before}`,
        `Order placed over budget ${boundary.before}`,
        `Monthly budget 80 % used ${boundary.after}`,
        `Monthly budget used up ${boundary.after}`,
        `Order placed over budget ${boundary.after}`,
      ].sort(),
    );
    const { rows } = await desk.store.query(
      "SELECT month, kind, told_at IS NOT NULL AS told FROM budget_alerts ORDER BY month, kind",
    );
    expect(rows).toEqual([
      // b took last month past 100 % and over at once: the over-budget alert said both.
      { month: boundary.before, kind: "100", told: false },
      { month: boundary.before, kind: "80", told: true },
      { month: boundary.before, kind: "over", told: true },
      { month: boundary.after, kind: "100", told: true },
      { month: boundary.after, kind: "80", told: true },
      { month: boundary.after, kind: "over", told: true },
    ]);
  });
});
