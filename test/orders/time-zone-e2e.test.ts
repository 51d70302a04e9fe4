/**
 * The customer's time zone, end to end through the composition root, once per store: the dates Order Desk shows
 * about one order read the same in its message, its thread, App Home and `/order status`, all in the customer file's
 * `timeZone` and from the app's clock.
 *
 * The world's clock (tools/world-clock.ts) starts at the latest noon UTC, which is 02:00 the next day in
 * Pacific/Kiritimati (UTC+14), the zone of this customer file: its day has just begun while UTC's is half gone, so
 * any of these shown in UTC says another day, and "in 3 days" where the thread says "in 2 days". The run takes
 * minutes, far from either day's end. The sandbox stalls the order in fulfilment, and the test sends its one shipping
 * update, signed as the supplier's: the order stays shipped while it is looked at.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderDesk } from "../../src/main.ts";
import { calendarDateIn, formatDay } from "../../src/orders/dates/business-days.ts";
import { STATUS_LINE_BLOCK_ID } from "../../src/slack/blocks/updates/status-line.ts";
import { EXAMPLE_DELIVERY } from "../../tools/example-form.ts";
import { SlackUser } from "../../tools/fake-slack/index.ts";
import { EXAMPLE_CUSTOMER_CONFIG, startWorld, type World } from "../../tools/world.ts";
import { latestNoonUtc } from "../../tools/world-clock.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { type ChildStore, freshDatabase, pgliteChildStore } from "../reliability/harness/stores.ts";
import { deliver, shippingEvent, until } from "../webhooks/support.ts";

const HELPDESK = "C0HELPDESK";
const AGENT = "U0AGENT01";
const ZONE = "Pacific/Kiritimati";
const silent = pino({ level: "silent" });

/** "Wed 25 Nov 02:04 GMT+14": an instant as the messages write it. */
const INSTANT = /\w{3} \d{1,2} \w{3}(?: \d{4})? \d{2}:\d{2} [\w+-]+/;

type Block = { block_id?: string; elements?: { text?: string }[] };

describe.each(TEST_BACKENDS)("the customer's time zone end to end (%s)", (backend) => {
  let world: World;
  let store: ChildStore;
  let desk: OrderDesk;
  let alice: SlackUser;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "od-time-zone-"));
    const customerConfig = join(dir, "order-desk.config.yml");
    await writeFile(
      customerConfig,
      `${await readFile(EXAMPLE_CUSTOMER_CONFIG, "utf8")}\ntimeZone: ${ZONE}\n`,
    );
    store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
    world = await startWorld({
      startAt: latestNoonUtc(),
      speed: 60_000,
      seed: `time-zone-${backend}`,
      customerConfig,
      sandbox: { logger: silent, stall: [{ match: "TZ-1" }] },
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
    alice = new SlackUser({ fake: world.fake, requests: world.requests, userId: AGENT, timeoutMs: 10_000 });
  }, 60_000);

  afterAll(async () => {
    await world?.close();
    await store?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The status line of a version of the order's message. */
  const statusLine = (blocks: unknown) =>
    ((blocks ?? []) as Block[]).find((b) => b.block_id === STATUS_LINE_BLOCK_ID)?.elements?.[0]?.text ?? "";

  it("writes the order's dates in the customer's zone in its message, its thread, App Home and /order status", {
    timeout: 60_000,
  }, async () => {
    const { triggerId } = await alice.runCommand({ channel: HELPDESK, command: "/order", text: "TZ-1" });
    const view = await alice.openedModal(triggerId);
    const submitted = await alice.submit(view.id, { ...EXAMPLE_DELIVERY, profile: "Acme EU" });
    expect(submitted.outcome.outcome).toBe("closed");
    // The sandbox takes it as far as "in fulfilment" and stalls it there.
    const order = (await until(
      async () =>
        (
          await desk.store.query(
            `SELECT id, status, correlation_id AS "correlationId", slack_message_ts AS ts
               FROM orders WHERE customer_reference = 'TZ-1'`,
          )
        ).rows[0] as { id: string; status: string; correlationId: string; ts: string | null } | undefined,
      (o) => o?.status === "in_fulfilment" && o.ts !== null,
      "the order in fulfilment",
      30_000,
    )) as { id: string; correlationId: string; ts: string };
    const customerToday = calendarDateIn(world.now(), ZONE);
    expect(customerToday).not.toBe(calendarDateIn(world.now(), "UTC"));

    // Then it ships, due the day after tomorrow in the customer's days: a signed update as the supplier sends it.
    const due = new Date(Date.parse(`${customerToday}T00:00:00Z`) + 2 * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const shipped = shippingEvent(order.correlationId, world.now().toISOString(), { estimatedDelivery: due });
    const secret = world.webhookSecrets[0] ?? "";
    expect((await deliver(`${world.appUrl}/webhooks/supplier`, shipped, { secret })).status).toBeLessThan(
      300,
    );
    const replies = () => world.fake.thread(HELPDESK, order.ts);
    const versions = () => world.fake.message(HELPDESK, order.ts)?.versions ?? [];
    const reply = await world.fake.waitFor(() => replies().find((m) => m.text.includes("shipped")), {
      timeoutMs: 10_000,
      what: "the shipped reply",
    });
    const shown = await world.fake.waitFor(
      () => {
        const line = statusLine(versions().at(-1)?.blocks);
        return line.includes("arrives") ? line : undefined;
      },
      { timeoutMs: 10_000, what: "the message showing the parcel's estimate" },
    );

    // The thread and the message: the same estimate in the same words, from the customer's today.
    const arrival = `arrives ${formatDay(due, customerToday)}, in 2 days`;
    expect(reply.text).toContain(arrival);
    expect(shown).toContain(arrival);
    // Their times: in the customer's zone, on its day, all from the one clock the world runs on (minutes apart,
    // where the database's, which stamped the order's "received", would be hours off).
    const instants = [
      ...replies().flatMap(
        (m) => JSON.stringify(m.blocks ?? null).match(/Supplier update · ([^"·]+?)(?: ·|")/)?.[1] ?? [],
      ),
      ...versions().flatMap(
        (v) => statusLine(v.blocks).match(new RegExp(`since (${INSTANT.source})`))?.[1] ?? [],
      ),
    ];
    expect(instants.length).toBeGreaterThanOrEqual(4);
    for (const at of instants)
      expect(at).toMatch(new RegExp(`^${formatDay(customerToday)} \\d{2}:\\d{2} GMT\\+14$`));
    const minutes = instants.map((at) => {
      const [, hh, mm] = at.match(/ (\d{2}):(\d{2}) /) ?? [];
      return Number(hh) * 60 + Number(mm);
    });
    expect(Math.max(...minutes) - Math.min(...minutes), instants.join("; ")).toBeLessThanOrEqual(5);

    // App Home and /order status show the message's status line, word for word.
    const inJson = JSON.stringify(shown).slice(1, -1);
    await world.fake.waitFor(
      () =>
        JSON.stringify(world.fake.homeView(AGENT)?.definition ?? null).includes(inJson) ? true : undefined,
      { timeoutMs: 10_000, what: `App Home showing ${shown}` },
    );
    const before = world.fake.responses().length;
    await alice.runCommand({ channel: HELPDESK, command: "/order", text: "status TZ-1" });
    const answer = await world.fake.waitFor(() => world.fake.responses().slice(before)[0], {
      timeoutMs: 10_000,
      what: "the status answer",
    });
    expect(JSON.stringify(answer.body)).toContain(inJson);
  });
});
