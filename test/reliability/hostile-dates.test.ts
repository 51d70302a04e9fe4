/**
 * Hostile dates, over Order Desk's real HTTP receiver and webhook route:
 * - the order modal's **Needed by** (the date picker's `selected_date`) and the workflow step's `needed_by`
 *   carrying garbage, other formats, impossible days, the past, today, the far future and binary: a date that is
 *   real, YYYY-MM-DD, after today and within two years is stored as given; anything else is refused on the field
 *   (the modal) or fails the step naming the input; never a crash or a 5xx, nothing stored from a refused one;
 * - supplier shipping updates for orders with a needed-by date whose `estimatedDelivery` is missing, null,
 *   malformed, of another type, in the past or far off: never a 5xx; the order's expected delivery stays a real date
 *   no earlier than the update's day; "At risk" and "Back on track" alternate, starting with "At risk", the
 *   order is at risk exactly when its last notice says so; no notice shows "Invalid", "NaN" or "undefined".
 *
 * The oracle is written here, not borrowed from the app: a date is valid when `new Date(...)` gives back the same
 * YYYY-MM-DD. Dates within a day of today or of the two-year limit are left out, so the day turning while the
 * test runs cannot change the answer.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIELD_BLOCK } from "../../src/slack/blocks/ids.ts";
import { signWebhook } from "../../src/supplier/webhook-signature.ts";
import { runWorkflowStep, SlackUser } from "../../tools/fake-slack/index.ts";
import type { SlackRequests } from "../../tools/slack-requests.ts";
import { FUZZ_SEED, fuzzBudget } from "./harness/fuzz-budget.ts";
import { type InProcessDesk, startInProcessDesk, watchForCrashes } from "./harness/in-process.ts";
import { record } from "./harness/results.ts";
import { orderForm, slackRequests } from "./harness/slack-driver.ts";
import { AGENT, CHANNELS, startWorld, type World } from "./harness/world.ts";

const RUNS = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 10_000);
const BATCH = 8;
const FUZZ_MODAL = fuzzBudget(Math.max(50, Math.min(400, Math.ceil(RUNS / 25))), 40, 60_000);
const FUZZ_WORKFLOW = fuzzBudget(Math.max(10, Math.min(40, Math.ceil(RUNS / 250))), 60, 90_000);
// Each update gets a reply (the fixture's `updates: all`) at the channel's pace of about one a second: capped so
// that posting them all stays within the test's time.
const FUZZ_ESTIMATES = fuzzBudget(Math.max(40, Math.min(120, Math.ceil(RUNS / 30))), 40, 400_000);
const MODAL_CHANNEL = CHANNELS[20] as string;
const WORKFLOW_CHANNEL = CHANNELS[21] as string;
/** One channel per order of the estimates test, each posting at its own pace. */
const EVENTS_CHANNELS = [CHANNELS[22] as string, CHANNELS[23] as string];
/** Orders whose estimates are fuzzed; their fulfilment in the sandbox is silent, so only our events reach them. */
const ESTIMATE_TICKETS = ["XDATE-1", "XDATE-2"];
const DAY = 86_400_000;
const MAX_DAYS = 2 * 366;

type Json = Record<string, unknown>;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const todayMs = () => Date.parse(`${isoDay(Date.now())}T00:00:00Z`);

/** A real calendar date written YYYY-MM-DD (so "2026-02-30" is not). */
function realDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

/** Days from today (UTC: the fixture's customer file names no time zone), or null for no real date. */
function daysFromToday(value: string): number | null {
  return realDate(value) ? Math.round((Date.parse(`${value}T00:00:00Z`) - todayMs()) / DAY) : null;
}

/** Whether Order Desk must take `value` as a needed-by date: blank (none), or a real date in (today, +2 years]. */
function acceptable(value: string): boolean {
  const trimmed = value.trim();
  if (trimmed === "") return true;
  const days = daysFromToday(trimmed);
  return days !== null && days > 0 && days <= MAX_DAYS;
}

/** A date this close to a boundary may change its answer if the day turns during the run. */
function nearBoundary(value: string): boolean {
  const days = daysFromToday(value.trim());
  return days !== null && (Math.abs(days) <= 1 || Math.abs(days - MAX_DAYS) <= 1);
}

const hostileDate = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      " ",
      "not a date",
      "2026-02-30",
      "2026-13-01",
      "2026-00-10",
      "2027-02-29",
      "07/12/2026",
      "12/07/2026",
      "2026/12/07",
      "20261207",
      "2026-12-7",
      "+012026-12-07",
      "2026-12-07T00:00:00Z",
      "2026-12-07 ",
      "２０２７-０１-１５",
      "0000-00-00",
      "0001-01-01",
      "1970-01-01",
      "9999-12-31",
      "275760-09-13",
      "1e309",
      "NaN",
      "__proto__",
      "<!channel>",
      "2027-01-15\n<!here>",
      "\u0000",
      "\ud800",
      "x".repeat(10_000),
    ),
  },
  // Real dates around today: the past, today, the next weeks, past the two-year limit.
  { weight: 3, arbitrary: fc.integer({ min: -800, max: 1_600 }).map((d) => isoDay(todayMs() + d * DAY)) },
  {
    weight: 1,
    arbitrary: fc
      .date({ min: new Date("0100-01-01"), max: new Date("9999-12-31"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
);

describe("hostile dates", () => {
  let world: World;
  let app: InProcessDesk;
  let requests: SlackRequests;
  let alice: SlackUser;
  let base: Json;
  const figures = { inputsTried: 0, crashes: 0, http5xx: 0, leaks: 0 };
  const notes: string[] = [];
  const t0 = Date.now();

  beforeAll(async () => {
    world = await startWorld({
      speed: 1,
      seed: "hostile-dates",
      sandbox: { stall: ESTIMATE_TICKETS.map((match) => ({ match, silent: true })) },
    });
    app = await startInProcessDesk(world, "hostile-dates");
    requests = slackRequests(world.fake, app.desk.url, world.signingSecret);
    alice = new SlackUser({ fake: world.fake, requests, userId: AGENT, timeoutMs: 5_000 });
    const { triggerId } = await alice.runCommand({
      channel: MODAL_CHANNEL,
      command: "/order",
      text: "XNB-1",
    });
    const view = await alice.openedModal(triggerId);
    alice.fill(view.id, orderForm("XNB-1"));
    base = world.fake.viewPayload(view.id);
  });

  afterAll(async () => {
    await app?.close();
    await world?.close();
    notes.push(`seed ${FUZZ_SEED}`);
    record(
      { scenario: "hostile dates", ...figures, durationMs: Date.now() - t0, notes },
      world?.secrets() ?? [],
    );
  });

  it(
    "keeps an order's dates and notices sound under fuzzed supplier estimates: missing, malformed, past, far off",
    async () => {
      const crashes = watchForCrashes();
      const problems: string[] = [];
      const firstDay = isoDay(Date.now());
      const neededBy = isoDay(todayMs() + 30 * DAY);
      const orders: Array<{ id: string; correlationId: string; ts: string; channel: string }> = [];
      for (const [i, ticket] of ESTIMATE_TICKETS.entries()) {
        const channel = EVENTS_CHANNELS[i] as string;
        const { triggerId } = await alice.runCommand({
          channel,
          command: "/order",
          text: ticket,
        });
        const view = await alice.openedModal(triggerId);
        const submitted = await alice.submit(view.id, {
          ...orderForm(ticket),
          [FIELD_BLOCK.neededBy]: neededBy,
        });
        expect(submitted.outcome.outcome).toBe("closed");
        // First in the file: no backlog of the other tests' orders ahead of these two.
        for (const deadline = Date.now() + 60_000; ; ) {
          const { rows } = await app.desk.store.query(
            `SELECT id, correlation_id AS cid, slack_message_ts AS ts FROM orders WHERE customer_reference = $1`,
            [ticket],
          );
          const row = rows[0];
          if (row?.cid && row.ts) {
            orders.push({ id: String(row.id), correlationId: String(row.cid), ts: String(row.ts), channel });
            break;
          }
          if (Date.now() > deadline) throw new Error(`${ticket} was not placed`);
          await sleep(100);
        }
      }
      const estimate = fc.oneof(
        { weight: 4, arbitrary: hostileDate as fc.Arbitrary<unknown> },
        // In time, late, in the past: the days a real supplier sends, so the risk changes back and forth.
        { weight: 4, arbitrary: fc.integer({ min: -5, max: 60 }).map((d) => isoDay(todayMs() + d * DAY)) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 20271207, {}, ["2027-01-15"]) },
      );
      let sent = 0;
      try {
        await FUZZ_ESTIMATES.assert(
          fc.asyncProperty(fc.constantFrom(...orders), estimate, async (order, value) => {
            const data: Json = {
              parcel: { number: 1, of: 1 },
              carrier: "DHL Express",
              trackingNumber: "1234567890",
              status: "in_transit",
              lines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
            };
            if (value !== undefined) data.estimatedDelivery = value;
            const id = `evt_${randomUUID().replace(/-/g, "")}`;
            const body = JSON.stringify({
              id,
              type: "order.shipping_updated",
              occurredAt: new Date(Date.now() + ++sent).toISOString(),
              correlationId: order.correlationId,
              data,
            });
            const headers = signWebhook({
              id,
              timestamp: Math.floor(Date.now() / 1000),
              body,
              secret: world.webhookSecrets[0] as string,
            });
            const res = await fetch(`${app.desk.url}/webhooks/supplier`, {
              method: "POST",
              body,
              headers: { "content-type": "application/json", ...headers },
            });
            await res.arrayBuffer();
            figures.inputsTried++;
            if (res.status >= 500) figures.http5xx++;
            if (res.status >= 300)
              problems.push(`estimate ${JSON.stringify(value)?.slice(0, 60)}: HTTP ${res.status}`);
          }),
        );
        // Every stored event of the orders applied and handled by the post-update job, and its notices posted.
        const postingMs = 30_000 + 1_000 * sent;
        for (const deadline = Date.now() + postingMs; ; ) {
          const { rows } = await app.desk.store.query(
            `SELECT (SELECT count(*) FROM supplier_events WHERE order_id = ANY($1) AND posted_at IS NULL)
                  + (SELECT count(*) FROM order_date_notices WHERE order_id = ANY($1) AND posted_at IS NULL) AS n`,
            [orders.map((o) => o.id)],
          );
          if (Number(rows[0]?.n) === 0) break;
          if (Date.now() > deadline) {
            problems.push(`${rows[0]?.n} events or notices still unposted after ${postingMs / 1000} s`);
            break;
          }
          await sleep(300);
        }
        for (const order of orders) {
          const { rows } = await app.desk.store.query(
            `SELECT to_char(expected_delivery, 'YYYY-MM-DD') AS expected, at_risk_since AS "atRisk",
                    expected_delivery_source AS source FROM orders WHERE id = $1`,
            [order.id],
          );
          const row = rows[0] as { expected: string | null; atRisk: Date | null; source: string | null };
          if (row.expected !== null && (!realDate(row.expected) || row.expected < firstDay))
            problems.push(
              `${order.id}: expected delivery ${row.expected} (before ${firstDay}, or not a date)`,
            );
          const { rows: kinds } = await app.desk.store.query(
            "SELECT kind FROM order_date_notices WHERE order_id = $1 ORDER BY seq",
            [order.id],
          );
          const sequence = kinds.map((k) => String(k.kind));
          sequence.forEach((kind, i) => {
            if (kind !== (i % 2 === 0 ? "at_risk" : "back_on_track"))
              problems.push(`${order.id}: notices out of turn: ${sequence.join(", ")}`);
          });
          const lastAtRisk = sequence.at(-1) === "at_risk";
          if (lastAtRisk !== (row.atRisk !== null))
            problems.push(`${order.id}: at risk ${row.atRisk !== null}, last notice ${sequence.at(-1)}`);
          if (row.expected !== null && row.expected > neededBy !== (row.atRisk !== null))
            problems.push(
              `${order.id}: expected ${row.expected}, needed by ${neededBy}, at risk ${row.atRisk}`,
            );
          const texts = world.fake
            .thread(order.channel, order.ts)
            .map((m) => m.text)
            .filter((t) => /At risk|Back on track/.test(t));
          if (texts.length !== sequence.length)
            problems.push(`${order.id}: ${sequence.length} notices, ${texts.length} in the thread`);
          for (const text of texts)
            if (/Invalid|NaN|undefined|null/.test(text))
              problems.push(`a notice reads "${text.slice(0, 120)}"`);
        }
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(FUZZ_ESTIMATES.note("supplier estimates", sent));
      }
      expect(problems.slice(0, 5)).toEqual([]);
      expect(crashes.errors).toEqual([]);
    },
    FUZZ_ESTIMATES.timeoutMs,
  );

  it(
    "stores a fuzzed Needed by from the modal as given when it is a real date after today, and refuses anything else on the field",
    async () => {
      const crashes = watchForCrashes();
      const problems: string[] = [];
      const block = FIELD_BLOCK.neededBy;
      const field = ((base.blocks as Json[]) ?? []).find((b) => b.block_id === block);
      const actionId = String((field?.element as Json | undefined)?.action_id);
      expect(field, "the modal has the date picker").toBeDefined();
      const expected = new Map<string, string>();
      const refused: string[] = [];
      let n = 0;
      try {
        await FUZZ_MODAL.assert(
          fc.asyncProperty(hostileDate, async (typed) => {
            fc.pre(!nearBoundary(typed));
            const id = `VNB${(++n).toString(36).toUpperCase()}${Date.now().toString(36).toUpperCase()}`;
            const view = JSON.parse(JSON.stringify(base)) as Json;
            view.id = id;
            view.root_view_id = id;
            const values = (view.state as { values: Record<string, Record<string, unknown>> }).values;
            values[block] = { [actionId]: { type: "datepicker", selected_date: typed } };
            const res = await requests
              .viewSubmission({ userId: AGENT, view, triggerId: "1.2.3" })
              .catch((error: Error) => ({ status: 0, text: `no answer: ${error.message}`, body: undefined }));
            figures.inputsTried++;
            if (res.status >= 500) figures.http5xx++;
            const shown = JSON.stringify(typed).slice(0, 60);
            const answer = res.body as
              | { response_action?: string; errors?: Record<string, string> }
              | undefined;
            if (res.status !== 200) {
              problems.push(`${shown}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
              return;
            }
            if (acceptable(typed)) {
              if (res.text !== "" && answer?.response_action !== undefined)
                problems.push(`${shown}: a valid date was not taken: ${res.text.slice(0, 200)}`);
              else expected.set(id, typed.trim());
              return;
            }
            refused.push(id);
            const message = answer?.errors?.[block] ?? "";
            if (answer?.response_action !== "errors" || !/needed by/i.test(message))
              problems.push(`${shown}: not refused on the date field: ${res.text.slice(0, 200)}`);
            // Shown as plain text under the field (Slack does not read mrkdwn there): bounded, whatever was typed.
            if (message.length > 300) problems.push(`${shown}: a refusal of ${message.length} characters`);
          }),
        );
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(FUZZ_MODAL.note("modal needed-by dates", n));
      }
      const { rows } = await app.desk.store.query(
        `SELECT substr(idempotency_key, 6) AS id, to_char(needed_by, 'YYYY-MM-DD') AS "neededBy"
           FROM orders WHERE idempotency_key LIKE 'view:VNB%'`,
      );
      const stored = new Map(rows.map((r) => [String(r.id), (r.neededBy as string | null) ?? ""]));
      for (const id of refused) if (stored.has(id)) problems.push(`refused submission ${id} left an order`);
      for (const [id, date] of expected) {
        if (stored.get(id) !== date) problems.push(`${id}: stored ${stored.get(id)}, given ${date}`);
      }
      expect(problems.slice(0, 5)).toEqual([]);
      expect(crashes.errors).toEqual([]);
      expect(refused.length).toBeGreaterThan(0);
    },
    FUZZ_MODAL.timeoutMs,
  );

  it(
    "fails a workflow step with a fuzzed needed_by naming the input, or stores the date as given",
    async () => {
      const crashes = watchForCrashes();
      const problems: string[] = [];
      const valid: Json = {
        ticket_id: "XWF-1",
        first_name: "Nina",
        last_name: "Newhire",
        email: "nina.newhire@example.com",
        phone: "+31 6 1234 5678",
        delivery_at: "Home",
        address1: "Keizersgracht 1",
        city: "Amsterdam",
        zip: "1015 CJ",
        country: "NL",
        items: "Desk refresh",
        channel: WORKFLOW_CHANNEL,
      };
      // The workflow input may also come as another type (a date-time from a form, a number).
      const neededBy = fc.oneof(
        { weight: 8, arbitrary: hostileDate as fc.Arbitrary<unknown> },
        {
          weight: 1,
          arbitrary: fc.constantFrom<unknown>(null, 20271207, true, ["2027-01-15"], { value: "2027-01-15" }),
        },
      );
      const steps: Array<{ id: string; given: unknown }> = [];
      let batches = 0;
      try {
        await FUZZ_WORKFLOW.assert(
          fc.asyncProperty(fc.array(neededBy, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
            batches++;
            await Promise.all(
              batch.map(async (given) => {
                if (typeof given === "string" && nearBoundary(given)) return;
                const run = await runWorkflowStep(world.fake, requests, {
                  callbackId: "place_order",
                  inputs: { ...valid, ticket_id: `XWF-${steps.length + 1}`, needed_by: given },
                }).catch((error: Error) => ({
                  response: { status: 0, text: `no answer: ${error.message}` },
                  functionExecutionId: "",
                }));
                figures.inputsTried++;
                if (run.response.status >= 500) figures.http5xx++;
                if (run.response.status !== 200)
                  problems.push(`HTTP ${run.response.status}: ${run.response.text}`);
                else steps.push({ id: run.functionExecutionId, given });
              }),
            );
          }),
        );
        const deadline = Date.now() + 60_000;
        const outcome = async () => {
          const { rows } = await app.desk.store.query(
            `SELECT substr(idempotency_key, 10) AS id, to_char(needed_by, 'YYYY-MM-DD') AS "neededBy"
               FROM orders WHERE idempotency_key LIKE 'function:%'`,
          );
          return new Map(rows.map((r) => [String(r.id), (r.neededBy as string | null) ?? ""]));
        };
        let orders = await outcome();
        const ended = (id: string) => {
          const e = world.fake.execution(id);
          return e?.status === "failed" || orders.has(id);
        };
        while (steps.some((s) => !ended(s.id)) && Date.now() < deadline) {
          await sleep(300);
          orders = await outcome();
        }
        for (const { id, given } of steps) {
          const shown = JSON.stringify(given)?.slice(0, 60);
          const execution = world.fake.execution(id);
          const takes = typeof given === "string" ? acceptable(given) : given === null;
          if (takes) {
            const want = typeof given === "string" ? given.trim() : "";
            if (orders.get(id) !== want)
              problems.push(
                `${shown}: stored ${orders.get(id)}, step ${execution?.status} ${execution?.error ?? ""}`,
              );
          } else if (execution?.status !== "failed" || orders.has(id)) {
            problems.push(`${shown}: not refused (step ${execution?.status}, order ${orders.has(id)})`);
          } else if (!String(execution.error ?? "").includes("needed_by")) {
            problems.push(
              `${shown}: the failure does not name needed_by: ${String(execution.error).slice(0, 160)}`,
            );
          }
        }
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(FUZZ_WORKFLOW.note("workflow needed_by batches", batches));
      }
      expect(problems.slice(0, 5)).toEqual([]);
      expect(crashes.errors).toEqual([]);
    },
    FUZZ_WORKFLOW.timeoutMs,
  );
});
