/**
 * Needed-by dates end to end, once per transport and store: Order Desk (its composition root) placing through the
 * sandbox, whose signed webhooks carry the estimates, with Slack's requests over signed HTTP or Socket Mode.
 *
 * - ONB-7 is needed 6 business days from today and expected in time (lead time 4): the sandbox ships it with its
 *   usual estimate (1–2 business days after shipping), then slips it by 10 business days, then recovers. The
 *   thread says "At risk" once and "Back on track" once, the requester gets one DM, and the admins' item closes.
 * - ONB-8 is needed 2 business days from today: the modal warns (lead time 4), the agent submits anyway, and the
 *   order is told at risk once it is placed. Its fulfilment is silent, so no estimate of the supplier's moves it.
 *
 * The world's clock (tools/world-clock.ts), Order Desk's and the sandbox's, starts at the latest noon UTC and runs
 * on from there: the day cannot turn during the run, whatever the hour it starts. The dates are computed from that
 * day with margins that hold on any day of the week (test/demo/story-dates.test.ts checks them for every day and
 * hour): the usual estimate is 2 to 4 business days from today (a delivery at home), the slipped one 10 more.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderDesk } from "../../src/main.ts";
import { addWorkingDays, calendarDateIn, formatDay } from "../../src/orders/dates/business-days.ts";
import { FIELD_BLOCK } from "../../src/slack/blocks/ids.ts";
import { EXAMPLE_DELIVERY } from "../../tools/example-form.ts";
import { SlackUser } from "../../tools/fake-slack/index.ts";
import { createSocketModeRequests } from "../../tools/socket-mode-requests.ts";
import { EXAMPLE_CUSTOMER_CONFIG, startWorld, type World } from "../../tools/world.ts";
import { latestNoonUtc } from "../../tools/world-clock.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { TRANSPORTS } from "../helpers/slack-world.ts";
import { type ChildStore, freshDatabase, pgliteChildStore } from "../reliability/harness/stores.ts";
import { until } from "../webhooks/support.ts";

const HELPDESK = "C0HELPDESK";
const AGENT = "U0AGENT01";
const silent = pino({ level: "silent" });
const CASES = TEST_BACKENDS.flatMap((backend) =>
  TRANSPORTS.map((transport) => [backend, transport] as const),
);

describe.each(CASES)("needed-by dates end to end (%s, Slack over %s)", (backend, transport) => {
  let world: World;
  let store: ChildStore;
  let desk: OrderDesk;
  let alice: SlackUser;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "od-needed-by-"));
    const customerConfig = join(dir, "order-desk.config.yml");
    await writeFile(
      customerConfig,
      `${await readFile(EXAMPLE_CUSTOMER_CONFIG, "utf8")}\nleadTimes:\n  default: 4\n`,
    );
    store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
    world = await startWorld({
      startAt: latestNoonUtc(),
      speed: 60_000,
      seed: `needed-by-${backend}-${transport}`,
      customerConfig,
      slackMode: transport,
      sandbox: {
        logger: silent,
        late: [{ match: "ONB-7", slipDays: 10, recovers: true }],
        stall: [{ match: "ONB-8", silent: true }],
      },
      env: { ...store.env, WEBHOOK_SETTLE_MS: "0", ORDER_DESK_ENV: "development" },
      slack: {
        users: [{ id: AGENT, name: "alice", realName: "Alice Agent" }],
        channels: [
          { id: HELPDESK, name: "helpdesk" },
          { id: "C0ITADMIN", name: "it-admin" },
        ],
      },
    });
    desk = await world.startDesk({ logger: silent });
    const requests =
      transport === "socket"
        ? createSocketModeRequests({
            socketMode: world.fake.socketMode,
            teamId: world.fake.teamId,
            appId: world.fake.appId,
          })
        : world.requests;
    alice = new SlackUser({ fake: world.fake, requests, userId: AGENT, timeoutMs: 10_000 });
  }, 60_000);

  afterAll(async () => {
    await world?.close();
    await store?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const today = () => calendarDateIn(world.now(), "UTC");

  async function openForm(ticket: string) {
    const { triggerId } = await alice.runCommand({ channel: HELPDESK, command: "/order", text: ticket });
    return alice.openedModal(triggerId);
  }

  async function shown(ticket: string) {
    return until(
      async () => {
        const { rows } = await desk.store.query(
          `SELECT id, slack_message_ts AS ts, external_document_number AS edn
             FROM orders WHERE customer_reference = $1 AND correlation_id IS NOT NULL`,
          [ticket],
        );
        return rows[0] as { id: string; ts: string | null; edn: string } | undefined;
      },
      (o) => o?.ts != null,
      `order ${ticket} placed and shown`,
      30_000,
    ) as Promise<{ id: string; ts: string; edn: string }>;
  }

  const notices = (ts: string) =>
    world.fake
      .thread(HELPDESK, ts)
      .map((m) => m.text)
      .filter((t) => /At risk|Back on track/.test(t));

  async function openItems(orderId: string): Promise<number> {
    const { rows } = await desk.store.query(
      "SELECT count(*)::int AS n FROM attention_items WHERE kind = 'at_risk_order' AND subject = $1 AND resolved_at IS NULL",
      [orderId],
    );
    return rows[0]?.n as number;
  }

  it("tells a slipped estimate once and its recovery once", { timeout: 60_000 }, async () => {
    const neededBy = addWorkingDays(today(), 6);
    const view = await openForm("ONB-7");
    const submitted = await alice.submit(view.id, {
      ...EXAMPLE_DELIVERY,
      profile: "Acme EU",
      [FIELD_BLOCK.neededBy]: neededBy,
    });
    expect(submitted.outcome.outcome).toBe("closed");
    const order = await shown("ONB-7");
    const told = await until(
      async () => notices(order.ts),
      (n) => n.length >= 2,
      "the at-risk and back-on-track replies",
      30_000,
    );
    // Every event delivered and posted: nothing more is said.
    await until(
      async () =>
        (await desk.store.query("SELECT status FROM orders WHERE id = $1", [order.id])).rows[0]
          ?.status as string,
      (s) => s === "delivered",
      "the delivery",
      30_000,
    );
    expect(told).toEqual([
      expect.stringMatching(new RegExp(`At risk: expected .+, needed by ${formatDay(neededBy, today())}`)),
      expect.stringContaining("Back on track"),
    ]);
    expect(notices(order.ts)).toHaveLength(2);
    // The supplier took it on the world's day, as Order Desk did.
    const atSupplier = (await world.sandbox.orders()).find((o) => o.customerReference === "ONB-7");
    expect(calendarDateIn(new Date(atSupplier?.acceptedAt ?? 0), "UTC")).toBe(today());
    expect(world.fake.dm(AGENT).filter((m) => m.text.includes(order.edn))).toHaveLength(1);
    expect(await openItems(order.id)).toBe(0);
  });

  it("warns in the modal, places when submitted anyway, and tells it at risk once", {
    timeout: 60_000,
  }, async () => {
    const neededBy = addWorkingDays(today(), 2);
    const view = await openForm("ONB-8");
    const form = { ...EXAMPLE_DELIVERY, profile: "Acme EU", [FIELD_BLOCK.neededBy]: neededBy };
    const warned = await alice.submit(view.id, form);
    expect(warned.outcome.outcome).toBe("updated");
    const blocks = (world.fake.view(view.id)?.definition.blocks ?? []) as {
      block_id?: string;
      hint?: { text: string };
    }[];
    expect(blocks.find((b) => b.block_id === FIELD_BLOCK.neededBy)?.hint?.text).toContain(
      "Usually delivered in 4 business days",
    );
    expect((await alice.submit(view.id, form)).outcome.outcome).toBe("closed");
    const order = await shown("ONB-8");
    await until(
      async () => notices(order.ts),
      (n) => n.length >= 1,
      "the at-risk reply",
      30_000,
    );
    const dm = await world.fake.waitFor(() => world.fake.dm(AGENT).find((m) => m.text.includes(order.edn)), {
      timeoutMs: 10_000,
      what: "the requester's DM",
    });
    expect(dm.text).toContain(`needed by ${formatDay(neededBy, today())}`);
    expect(notices(order.ts)).toEqual([expect.stringContaining("At risk: expected")]);
    expect(await openItems(order.id)).toBe(1);
  });
});
