/**
 * `npm run demo`: Order Desk's main job, offline. Starts the supplier sandbox (fast timeline), the fake Slack
 * Web API, a fake Secrets Manager holding the supplier key, and Order Desk itself on an embedded store in a
 * temporary directory, all on loopback. Then it does what users do, through what Slack sends: signed HTTP
 * requests, or with `--socket` envelopes over a Socket Mode WebSocket (Order Desk's default in production):
 * an agent's `/order` with a modal submission (first with mistakes), a message-shortcut order on a ticket
 * message, and a Workflow Builder step for a new hire. It waits until the supplier has delivered every order and
 * every supplier event has been handled (the thread shows the milestones, the status line the rest), prints the
 * threads and what each order's thread got, has an admin export the month's orders as CSV (`/order export`), and
 * exits 0 (non-zero naming the step that failed).
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "../../src/log.ts";
import type { OrderDesk } from "../../src/main.ts";
import { SANDBOX_DIALECTS, type SandboxDialect } from "../../src/sandbox/dialect.ts";
import { CALLBACK, FIELD_BLOCK } from "../../src/slack/blocks/ids.ts";
import { STATUS_LINE_BLOCK_ID } from "../../src/slack/blocks/updates/status-line.ts";
import { runWorkflowStep, SlackUser } from "../fake-slack/index.ts";
import { plainText } from "../fake-slack/transcript.ts";
import { createSocketModeRequests } from "../socket-mode-requests.ts";
import { startWorld, type World } from "../world.ts";
import { latestNoonUtc } from "../world-clock.ts";
import { DEMO_SLIP_DAYS, demoCustomerConfig, demoNeededBy } from "./customer-file.ts";
import { estimatesOf, threadSummary } from "./figures.ts";

export interface DemoIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

const USAGE = `Usage: npm run demo -- [--socket] [--dialect default|alt] [--speed N] [--timeout-ms N] [--keep]

Runs the whole flow offline and prints each Slack thread.
  --socket       Slack reaches Order Desk over Socket Mode (a WebSocket Order Desk opens), not HTTP requests
  --dialect      how the supplier's webhooks look: default (our own format, Standard Webhooks signatures) or
                 alt (another supplier's shape and HMAC signatures, read through
                 examples/supplier-events.alt.yml)
  --speed        how much faster than real time the supplier fulfils orders (default 300)
  --timeout-ms   give up when the orders are not delivered by then (default 90000)
  --keep         keep the temporary directory (database and the JSON log) and print its path
`;

const AGENT = "U0AGENT01";
const MANAGER = "U0MANAGER";
const NEW_HIRE = "U0NEWHIRE";
/** In `admins` of the example customer file. */
const IT_LEAD = "U0ITLEAD";
const HELPDESK = "C0HELPDESK";
const ONBOARDING = "C0ONBOARD";
const ADMIN = "C0ITADMIN";
/** The onboarding order, whose delivery estimate the sandbox makes slip and recover. */
const ONBOARDING_TICKET = "ONB-7";

/** What the transcript says about the supplier's webhooks in each dialect (docs/sandbox.md, Dialects). */
const DIALECT_LINE: Record<SandboxDialect, string> = {
  default:
    "default dialect (our own event format, Standard Webhooks signatures; the customer file has no supplierEvents)",
  alt:
    "alt dialect (another supplier's shape: eventType, nested order and shipment, Unix-millisecond times; " +
    "HMAC-SHA256 in X-Supplier-Signature), read through supplierEvents: examples/supplier-events.alt.yml",
};

const CLOCK_FORMAT = new Intl.DateTimeFormat("en-GB", {
  weekday: "short",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
  timeZone: "UTC",
});

class StepFailed extends Error {
  constructor(
    readonly step: string,
    cause: unknown,
  ) {
    super(`${step}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function runDemo(argv: string[], io: DemoIo): Promise<number> {
  let args: { speed: number; timeoutMs: number; keep: boolean; socket: boolean; dialect: SandboxDialect };
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        speed: { type: "string", default: "300" },
        "timeout-ms": { type: "string", default: "90000" },
        keep: { type: "boolean", default: false },
        socket: { type: "boolean", default: false },
        dialect: { type: "string", default: "default" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
    if (values.help) {
      io.stdout.write(USAGE);
      return 0;
    }
    args = {
      speed: Number(values.speed),
      timeoutMs: Number(values["timeout-ms"]),
      keep: values.keep,
      socket: values.socket,
      dialect: values.dialect as SandboxDialect,
    };
    if (!(args.speed > 0) || !(args.timeoutMs > 0))
      throw new Error("--speed and --timeout-ms take numbers > 0");
    if (!SANDBOX_DIALECTS.includes(args.dialect))
      throw new Error(`--dialect takes ${SANDBOX_DIALECTS.join(" or ")} (got "${values.dialect}")`);
  } catch (error) {
    io.stderr.write(`demo: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }

  const started = Date.now();
  const say = (line: string) => io.stdout.write(`${line}\n`);
  const closers: Array<() => Promise<unknown> | unknown> = [];
  const dir = await mkdtemp(join(tmpdir(), "order-desk-demo-"));
  const logFile = join(dir, "order-desk.log");
  const logStream = createWriteStream(logFile);
  const logger = createLogger({ level: "info" }, logStream);

  async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const t0 = Date.now();
    try {
      const value = await fn();
      say(`  ✓ ${name} (${Date.now() - t0} ms)`);
      return value;
    } catch (error) {
      throw new StepFailed(name, error);
    }
  }

  try {
    say("Order Desk demo: everything runs on this machine, nothing leaves it.");
    say(`The supplier's webhooks: ${DIALECT_LINE[args.dialect]}.`);
    // One clock for the supplier's dates and Order Desk's, started at a noon: the day cannot turn during the demo.
    const startAt = latestNoonUtc();
    say(
      `The demo's clock starts at ${CLOCK_FORMAT.format(startAt).replace(/,/g, "")} UTC, the latest noon, and runs on from there.\n`,
    );
    const customerConfig = await demoCustomerConfig(dir, MANAGER);
    const world: World = await step(
      `start the supplier sandbox (speed ×${args.speed}), a local Secrets Manager holding the supplier ` +
        "API key, and the fake Slack workspace",
      () =>
        startWorld({
          startAt,
          speed: args.speed,
          seed: "demo",
          customerConfig,
          dialect: args.dialect,
          slackMode: args.socket ? "socket" : "http",
          // The new hire's kit: its estimate slips after shipping, then comes back on time (docs/sandbox.md).
          sandbox: {
            logger,
            late: [{ match: ONBOARDING_TICKET, slipDays: DEMO_SLIP_DAYS, recovers: true }],
          },
          keyExpiresInDays: 200,
          env: { ORDER_DESK_ENV: "development", WEBHOOK_SETTLE_MS: "300" },
          slack: {
            users: [
              { id: AGENT, name: "alice", realName: "Alice Agent" },
              { id: MANAGER, name: "mark", realName: "Mark Manager" },
              { id: NEW_HIRE, name: "nina", realName: "Nina Newhire" },
              { id: IT_LEAD, name: "ivy", realName: "Ivy IT Lead" },
            ],
            channels: [
              { id: HELPDESK, name: "helpdesk" },
              { id: ONBOARDING, name: "onboarding" },
              { id: ADMIN, name: "it-admin" },
            ],
            usergroups: [{ id: "S0HELPDESK", handle: "helpdesk", users: [MANAGER] }],
          },
        }),
    );
    closers.push(() => world.close());
    const { fake, sandbox } = world;

    const transport = args.socket ? "Socket Mode" : "HTTP";
    const desk: OrderDesk = await step(`start Order Desk (embedded store, Slack over ${transport})`, () =>
      world.startDesk({ logger, env: { ORDER_DESK_DATA_DIR: join(dir, "data") } }),
    );

    if (args.socket) {
      // Order Desk starts even when Slack does not answer at once, and connects in the background.
      await step("Order Desk opens its Socket Mode connection to Slack", () =>
        fake.waitFor(() => desk.slack.socketStatus()?.connected, {
          what: "Order Desk's Socket Mode connection",
          timeoutMs: args.timeoutMs,
        }),
      );
    }
    // What Slack sends: signed HTTP requests, or envelopes over the Socket Mode connection Order Desk opened.
    const requests = args.socket
      ? createSocketModeRequests({ socketMode: fake.socketMode, teamId: fake.teamId, appId: fake.appId })
      : world.requests;
    const alice = new SlackUser({ fake, requests, userId: AGENT, timeoutMs: 10_000 });
    const form = {
      first_name: "Priya",
      last_name: "Patel",
      email: "priya.patel@example.com",
      phone: "+31 20 555 0199",
      delivery_at: "Office",
      company: "Acme BV",
      address1: "Herengracht 500",
      city: "Amsterdam",
      zip: "1017 CB",
      country: { value: "NL", text: "Netherlands (NL)" },
      line_0_item: { value: "LAP-14-PRO", text: 'Laptop 14" Pro (LAP-14-PRO)' },
      line_0_quantity: "1",
    };

    say("\nWhat the users do:");
    await step(
      "alice: /order HD-1042 in #helpdesk, submits with mistakes, sees them inline, fixes them; needed tomorrow, she is warned and submits anyway",
      async () => {
        const { triggerId } = await alice.runCommand({
          channel: HELPDESK,
          command: "/order",
          text: "HD-1042",
        });
        const view = await alice.openedModal(triggerId);
        const wrong = await alice.submit(view.id, {
          ...form,
          profile: "Acme EU",
          email: "priya.patel-at-example",
          country: { value: "XX", text: "XX" },
        });
        if (wrong.outcome.outcome !== "errors")
          throw new Error(`expected inline errors, got ${wrong.outcome.outcome}`);
        const errors = Object.keys(fake.view(view.id)?.errors ?? {});
        say(`      inline errors on: ${errors.join(", ")}`);
        // Needed tomorrow, at home: the modal warns under the date, and alice submits anyway.
        const fixed = {
          ...form,
          profile: "Acme EU",
          delivery_at: "Home",
          [FIELD_BLOCK.neededBy]: demoNeededBy(world.now()).warned,
        };
        const warned = await alice.submit(view.id, fixed);
        if (warned.outcome.outcome !== "updated")
          throw new Error(`expected the late-delivery warning, got ${JSON.stringify(warned.outcome)}`);
        const blocks = (fake.view(view.id)?.definition.blocks ?? []) as {
          block_id?: string;
          hint?: { text?: string };
        }[];
        const hint = blocks.find((b) => b.block_id === FIELD_BLOCK.neededBy)?.hint?.text;
        say(`      warned under Needed by: ${hint}`);
        const placed = await alice.submit(view.id, fixed);
        if (placed.outcome.outcome !== "closed")
          throw new Error(`the modal did not close: ${JSON.stringify(placed.outcome)}`);
      },
    );

    await step("mark posts ticket HD-1043; alice orders from it with the message shortcut", async () => {
      const ticket = fake.postAsUser(
        HELPDESK,
        MANAGER,
        "HD-1043: the Rotterdam field team needs six company phones, please.",
      );
      const { triggerId } = await alice.shortcutOnMessage({
        channel: HELPDESK,
        ts: ticket.ts,
        callbackId: CALLBACK.orderFromMessage,
      });
      const view = await alice.openedModal(triggerId);
      const done = await alice.submit(view.id, {
        ...form,
        profile: "Acme EU",
        first_name: "Tom",
        last_name: "de Vries",
        email: "tom.devries@example.com",
        address1: "Coolsingel 40",
        city: "Rotterdam",
        zip: "3011 AD",
        line_0_item: { value: "PHONE-STD", text: "Smartphone (standard) (PHONE-STD)" },
        line_0_quantity: "6",
      });
      if (done.outcome.outcome !== "closed")
        throw new Error(`the modal did not close: ${JSON.stringify(done.outcome)}`);
    });

    await step(
      "HD-1043 waits for approval (its total is over €3,500); mark approves it from his DM",
      async () => {
        const mark = new SlackUser({ fake, requests, userId: MANAGER, timeoutMs: 10_000 });
        const dm = await fake.waitFor(
          () =>
            fake
              .dm(MANAGER)
              .find(
                (m) =>
                  m.threadTs === undefined && JSON.stringify(m.versions.at(-1)?.blocks).includes("HD-1043"),
              ),
          { what: "mark's approval DM for HD-1043", timeoutMs: args.timeoutMs },
        );
        say(`      mark's DM: ${dm.versions.at(-1)?.text}`);
        await mark.clickInMessage({ channel: dm.channel, ts: dm.ts, actionId: "approve_order" });
        const decided = await fake.waitFor(
          () => {
            const latest = fake.message(dm.channel, dm.ts)?.versions.at(-1);
            return latest && !JSON.stringify(latest.blocks).includes("approve_order") ? latest : undefined;
          },
          { what: "mark's DM to show the approval", timeoutMs: args.timeoutMs },
        );
        // As Slack shows it: a mention as the person's name, not its raw <@U…> form.
        say(`      then: ${plainText(fake.workspace, decided.text)}`);
      },
    );

    const execution = await step(
      "onboarding workflow: 'Place IT order' for nina, Remote starter kit to her home",
      async () => {
        const run = await runWorkflowStep(fake, requests, {
          callbackId: "place_order",
          inputs: {
            ticket_id: ONBOARDING_TICKET,
            recipient: NEW_HIRE,
            first_name: "Nina",
            last_name: "Newhire",
            email: "nina.newhire@example.com",
            phone: "+31 6 1234 5678",
            delivery_at: "Home",
            address1: "Keizersgracht 1",
            city: "Amsterdam",
            zip: "1015 CJ",
            country: "NL",
            items: "Remote starter kit",
            channel: ONBOARDING,
            // The new hire's first day, from the onboarding form.
            needed_by: demoNeededBy(world.now()).onboarding,
          },
        });
        if (run.response.status !== 200) throw new Error(`the app answered HTTP ${run.response.status}`);
        return run;
      },
    );

    say("\nWhat happens next (the supplier fulfils, its webhooks thread into Slack):");
    await step("the workflow step completes with its outputs", async () => {
      const outputs = await until("functions.completeSuccess", args.timeoutMs, async () => {
        const e = fake.execution(execution.functionExecutionId);
        if (e?.status === "failed") throw new Error(`the step failed: ${e.error}`);
        return e?.status === "completed" ? e.outputs : undefined;
      });
      say(`      outputs: ${JSON.stringify(outputs)}`);
    });

    await step("every order is delivered and each supplier event is handled", async () => {
      let last = "";
      try {
        await until("delivery of the three orders", args.timeoutMs, async () => {
          const { rows } = await desk.store.query(
            `SELECT o.external_document_number AS edn, o.status, o.slack_channel_id AS channel,
                    o.slack_message_ts AS ts, count(e.id)::int AS events,
                    count(e.id) FILTER (WHERE e.posted_at IS NULL)::int AS unposted
               FROM orders o LEFT JOIN supplier_events e ON e.order_id = o.id
              GROUP BY o.id ORDER BY o.created_at`,
          );
          const orders = rows as {
            edn: string;
            status: string;
            channel: string | null;
            ts: string | null;
            events: number;
            unposted: number;
          }[];
          // What people see: the order's message shows Delivered on its status line.
          const shownDelivered = (o: (typeof orders)[number]) => {
            const latest = o.channel && o.ts ? fake.message(o.channel, o.ts)?.versions.at(-1) : undefined;
            const blocks = (latest?.blocks ?? []) as { block_id?: string }[];
            return JSON.stringify(blocks.find((b) => b.block_id === STATUS_LINE_BLOCK_ID) ?? "").includes(
              "Delivered",
            );
          };
          last = orders
            .map(
              (o) =>
                `${o.edn} ${o.status} (${o.events} events, ${o.unposted} unposted, ` +
                `message ${shownDelivered(o) ? "shows" : "does not show"} Delivered)`,
            )
            .join("; ");
          const done =
            orders.length === 3 &&
            orders.every((o) => o.status === "delivered" && o.unposted === 0 && shownDelivered(o));
          return done ? orders : undefined;
        });
      } catch (error) {
        const failed = await desk.jobs.listFailed({ limit: 5 }).catch(() => []);
        const orphans = await desk.store
          .query("SELECT count(*)::int AS n FROM supplier_events WHERE order_id IS NULL")
          .then((r) => (r.rows[0] as { n: number }).n)
          .catch(() => "?");
        for (const channel of [HELPDESK, ONBOARDING]) {
          io.stderr.write(`${fake.transcript(channel, { statusBlockId: STATUS_LINE_BLOCK_ID })}\n`);
        }
        throw new Error(
          `${(error as Error).message}; orders: ${last || "none"}; orphan events: ${orphans}; ` +
            `failed jobs: ${JSON.stringify(failed)}`,
        );
      }
    });
    const atSupplier = await sandbox.orders();
    const numbers = atSupplier.map((o) => o.externalDocumentNumber);
    if (atSupplier.length !== 3 || new Set(numbers).size !== numbers.length) {
      throw new Error(`expected 3 orders at the supplier, each once; it holds: ${numbers.join(", ")}`);
    }
    say(`      the supplier holds ${atSupplier.length} orders, each placed once (${numbers.join(", ")})`);
    say(`      ${await estimatesOf(sandbox, ONBOARDING_TICKET)}`);
    // Every delivery read by the mapping in force: one it could not read would be kept aside, never posted.
    const { rows: unreadable } = await desk.store.query(
      "SELECT count(*)::int AS n FROM unreadable_events WHERE resolved_at IS NULL",
    );
    const unread = (unreadable[0] as { n: number }).n;
    if (unread > 0) throw new Error(`${unread} supplier deliveries could not be read as events`);
    say(`      every supplier delivery was read as an event (${args.dialect} dialect)`);

    for (const channel of [HELPDESK, ONBOARDING]) {
      say("");
      say(fake.transcript(channel, { statusBlockId: STATUS_LINE_BLOCK_ID }));
    }
    say("");
    say(await threadSummary(desk, fake));

    say("\nWhat an admin does at the end of the month:");
    await step("ivy (an admin): /order export for the month, for finance", async () => {
      // The month the orders were taken in, typed out: the demo must not depend on the date it runs.
      const { rows } = await desk.store.query(
        `SELECT to_char(min(created_at) AT TIME ZONE 'UTC', 'YYYY-MM') AS month FROM orders`,
      );
      const month = String((rows[0] as { month: string }).month);
      const ivy = new SlackUser({ fake, requests, userId: IT_LEAD, timeoutMs: 10_000 });
      await ivy.runCommand({ channel: ADMIN, command: "/order", text: `export ${month}` });
      const file = await until(`orders-${month}.csv in ivy's DM`, args.timeoutMs, async () =>
        fake.files().find((f) => f.filename === `orders-${month}.csv` && f.shares.length > 0),
      );
      const lines = (file.content?.toString("utf8") ?? "").split("\r\n").filter(Boolean);
      const note = fake.dm(IT_LEAD).find((m) => m.text.startsWith("Orders of"))?.text ?? "";
      say(`      ivy's DM: ${note}`);
      say(
        `      📎 ${file.filename}: ${lines.length - 1} orders, ${file.length} bytes; columns: ${lines[0]}`,
      );
    });
    say(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    say(
      `\nNext: ${args.socket ? "" : "`npm run demo -- --socket` runs the same over Socket Mode; "}` +
        'README.md, "Running it for real", connects a real workspace and supplier (start with .env.example); ' +
        "`node bin/order-desk.js --help` lists the commands.",
    );
    if (args.keep) say(`Database and JSON log kept in ${dir}`);
    return 0;
  } catch (error) {
    const step = error instanceof StepFailed ? error.step : "setting up";
    io.stderr.write(
      `\nThe demo failed at: ${step}\n  ${error instanceof Error ? error.message : String(error)}\n` +
        `Order Desk's log: ${logFile}\n`,
    );
    args.keep = true;
    return 1;
  } finally {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch {
        // Shutting down the demo's own servers; nothing to report to the reader.
      }
    }
    logStream.end();
    if (!args.keep) await rm(dir, { recursive: true, force: true });
  }
}
