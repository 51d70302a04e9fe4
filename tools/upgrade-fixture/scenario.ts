/**
 * The upgrade fixture's scenario, run by build.ts INSIDE A CHECKOUT OF THE PREVIOUS RELEASE (copied there into
 * tools/upgrade-fixture/), with that checkout's own world (tools/world.ts: sandbox, fake Slack, Secrets
 * Manager), its Slack driver and its `order-desk start` in a child process. It leaves every kind of work in
 * flight, stops the app (SIGTERM, or SIGKILL with no shutdown hook), and writes to `--out`: the store (a packed
 * PGlite directory, or a `pg_dump` of the PostgreSQL database), the sandbox's tables, the fake Slack's messages,
 * and manifest.json saying what waits.
 *
 *   node --import tsx tools/upgrade-fixture/scenario.ts --store pglite|postgres --stop sigterm|sigkill \
 *     --out DIR --revision SHA [--database-url URL]   (postgres: an empty database of its own)
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import pg from "pg";
import { openStore, type Store } from "../../src/store/db.ts";
import type { FakeMessage } from "../fake-slack/index.ts";
import { startWorld } from "../world.ts";
import { orderThroughSlack } from "./order.ts";
import {
  AGENT,
  APPROVER_EXPIRE,
  APPROVER_REMIND,
  CHANNELS,
  CUSTOMER_CONFIG,
  DESK_ENV,
  type Manifest,
  type ManifestJob,
  type ManifestOrder,
  SLACK,
  SPEED,
  TICKETS,
} from "./workspace.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const { values: args } = parseArgs({
  options: {
    store: { type: "string" },
    stop: { type: "string" },
    out: { type: "string" },
    revision: { type: "string" },
    "database-url": { type: "string" },
  },
});
const storeKind = args.store === "postgres" ? "postgres" : "pglite";
const stopKind = args.stop === "sigkill" ? "sigkill" : "sigterm";
const out = args.out ?? "";
if (!out || (storeKind === "postgres" && !args["database-url"])) {
  throw new Error("usage: --store pglite|postgres --stop sigterm|sigkill --out DIR [--database-url URL]");
}

type Mode = "outage" | "placeThenOutage" | "unauthorized";

/** In front of the sandbox: create calls answered by ticket (customerReference), everything else passed on. */
async function startGateway(target: string, modes: Map<string, Mode>) {
  const placedOnce = new Set<string>();
  const creates = new Map<string, number>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let ticket: string | undefined;
    if (req.url === "/orders/create") {
      try {
        ticket = (JSON.parse(body.toString("utf8")) as { customerReference?: string }).customerReference;
      } catch {}
    }
    const mode = ticket === undefined ? undefined : modes.get(ticket);
    if (ticket !== undefined) creates.set(ticket, (creates.get(ticket) ?? 0) + 1);
    const unavailable = () => res.writeHead(503, { "retry-after": "1" }).end("upstream unavailable");
    if (mode === "unauthorized") return void res.writeHead(401).end();
    if (mode === "outage" || (mode === "placeThenOutage" && ticket && placedOnce.has(ticket)))
      return unavailable();
    const headers = { ...req.headers, "content-length": String(body.length) };
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers }, (answer) => {
      if (mode === "placeThenOutage" && ticket) {
        placedOnce.add(ticket);
        answer.resume();
        return unavailable();
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    creates,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 90_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

const eventIdOf = (m: FakeMessage) =>
  (m.metadata as { event_payload?: { event_id?: string } } | undefined)?.event_payload?.event_id;

async function main(): Promise<void> {
  await mkdir(out, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), "od-upgrade-fixture-"));
  const logFile = join(work, "order-desk.log");
  const log = createWriteStream(logFile, { flags: "a" });
  const modes = new Map<string, Mode>();
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
  // The sandbox keeps its orders in SQL, so that they can be carried to the upgrade test.
  const sandboxDb = await openStore({ dataDir: "memory://" });
  const world = await startWorld({
    speed: SPEED,
    seed: `upgrade-fixture-${storeKind}-${stopKind}`,
    customerConfig: CUSTOMER_CONFIG,
    sandbox: { store: sandboxDb },
    inFrontOfSandbox: async (url) => {
      gateway = await startGateway(url, modes);
      return gateway;
    },
    slack: SLACK,
    env: DESK_ENV,
  });
  const front = gateway!;
  const dataDir = join(work, "data");
  const storeEnv: Record<string, string> =
    storeKind === "postgres" ? { DATABASE_URL: args["database-url"]! } : { ORDER_DESK_DATA_DIR: dataDir };

  // `order-desk start` as an operator runs it.
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, "bin/order-desk.js"), "start"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...world.env(storeEnv) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  await until("Order Desk ready", async () => {
    const res = await fetch(`${world.appUrl}/readyz`).catch(() => null);
    await res?.body?.cancel();
    return res?.status === 200;
  });

  const fake = world.fake;
  const agent = world.user(AGENT, 4_000);
  const order = (ticket: string, channel: string) =>
    orderThroughSlack(agent, ticket, channel, Date.now() + 60_000);
  const atSupplier = async (ticket: string) =>
    (await world.sandbox.orders()).filter((o) => o.customerReference === ticket);
  const threadOf = (channel: string, ticket: string) =>
    fake.topLevel(channel).find((m) => m.isBot && m.versions.some((v) => v.text.includes(ticket)));

  // (b) Placed orders whose next events are stored but not posted: Slack fails every post in their channel.
  for (const ticket of TICKETS.events) await order(ticket, CHANNELS.events);
  await until("the first update of each events order in its thread", () =>
    TICKETS.events.every((t) => {
      const parent = threadOf(CHANNELS.events, t);
      return parent && fake.thread(CHANNELS.events, parent.ts).some((m) => eventIdOf(m) !== undefined);
    }),
  );
  fake.failNext("chat.postMessage", { httpStatus: 503, body: "" }, 1_000_000, { channel: CHANNELS.events });
  await until("an event of each events order delivered but not posted", async () => {
    for (const ticket of TICKETS.events) {
      const [summary] = await atSupplier(ticket);
      const detail = summary && (await world.sandbox.order(summary.correlationId));
      const parent = threadOf(CHANNELS.events, ticket);
      const posted = new Set(parent ? fake.thread(CHANNELS.events, parent.ts).map(eventIdOf) : []);
      const waiting = detail?.events.filter(
        (e) => e.delivery.state === "delivered" && !posted.has(e.event.id),
      );
      if (!waiting?.length) return false;
    }
    return true;
  });

  // (a) Placements the supplier does not take (503), one of them taken but its answer lost; (d) refused (401).
  for (const t of TICKETS.retried) modes.set(t, "outage");
  for (const t of TICKETS.placedUnknown) modes.set(t, "placeThenOutage");
  for (const t of TICKETS.failed) modes.set(t, "unauthorized");
  for (const t of [...TICKETS.retried, ...TICKETS.placedUnknown, ...TICKETS.failed])
    await order(t, CHANNELS.placements);
  await until("the refused placements' admin alerts", () =>
    TICKETS.failed.every((t) => fake.topLevel(CHANNELS.admin).some((m) => m.text.includes(t))),
  );
  await until("each retried placement tried twice", () =>
    [...TICKETS.retried, ...TICKETS.placedUnknown].every((t) => (front.creates.get(t) ?? 0) >= 2),
  );

  // (c) Approvals: reminded already and due their expiry; then due their reminder.
  for (const t of TICKETS.expiries) await order(t, CHANNELS.expiries);
  await until("the expiring orders' reminders", () =>
    TICKETS.expiries.every((t) =>
      fake.dm(APPROVER_EXPIRE).some((m) => /Reminder/.test(m.text) && m.text.includes(t)),
    ),
  );
  for (const t of TICKETS.reminders) await order(t, CHANNELS.reminders);
  await until("the reminded orders' approval DMs", () =>
    TICKETS.reminders.every((t) =>
      fake.dm(APPROVER_REMIND).some((m) => JSON.stringify(m.versions.at(-1)?.blocks ?? []).includes(t)),
    ),
  );

  const remindedEarly = TICKETS.reminders.filter((t) =>
    fake.dm(APPROVER_REMIND).some((m) => /Reminder/.test(m.text) && m.text.includes(t)),
  );
  if (remindedEarly.length > 0) throw new Error(`${remindedEarly} reminded before the stop: run again`);

  // Stop, the way the operator did: SIGTERM (shutdown hooks run) or SIGKILL (none do).
  child.kill(stopKind === "sigkill" ? "SIGKILL" : "SIGTERM");
  await exited;
  log.end();

  // The store, as the stopped app left it: packed before anything opens it again (an open would recover it).
  let storeFile: string;
  if (storeKind === "pglite") {
    storeFile = "store.tar.gz";
    execFileSync("tar", ["-czf", join(out, storeFile), "-C", dataDir, "."]);
  } else {
    storeFile = "store.sql";
    const dump = execFileSync(
      "pg_dump",
      ["--inserts", "--no-owner", "--no-privileges", "--no-comments", args["database-url"]!],
      { maxBuffer: 256 * 1024 * 1024 },
    );
    // Plain SQL any client can run: without psql's meta-commands (recent pg_dump releases wrap the dump in
    // \restrict … \unrestrict) and without a setting of the dumping client's connection that a restore needs not.
    const sql = dump
      .toString("utf8")
      .replace(/^(\\(un)?restrict .*|SET idle_in_transaction_\w+ = 0;)\n/gm, "");
    await writeFile(join(out, storeFile), sql);
  }
  const sandboxTables: Record<string, unknown> = {};
  for (const table of ["sandbox_orders", "sandbox_events", "sandbox_deliveries"]) {
    const { rows } = await sandboxDb.query(
      `SELECT coalesce(json_agg(t ORDER BY 1), '[]'::json) AS rows FROM ${table} t`,
    );
    sandboxTables[table] = rows[0]?.rows;
  }
  await writeFile(join(out, "sandbox.json"), `${JSON.stringify(sandboxTables)}\n`);
  const messages = [...fake.workspace.channels.values()].map((c) => ({
    channel: { id: c.id, isIm: c.isIm, user: c.user ?? null },
    messages: fake.workspace.messages.get(c.id) ?? [],
  }));
  await writeFile(join(out, "slack.json"), `${JSON.stringify(messages)}\n`);
  await writeFile(join(out, "order-desk.config.yml"), await readFile(CUSTOMER_CONFIG));
  const atSupplierNow = new Set(
    (await world.sandbox.orders()).map((o) => o.customerReference).filter((t) => t !== null),
  );
  await world.close();
  await sandboxDb.close();

  // What is in flight, read from a copy of the store (PGlite) or the database itself.
  let reader: { query: Store["query"]; close(): Promise<void> };
  if (storeKind === "pglite") {
    const copy = join(work, "copy");
    await cp(dataDir, copy, { recursive: true });
    reader = await openStore({ dataDir: copy, migrate: false });
  } else {
    const client = new pg.Client({ connectionString: args["database-url"] });
    await client.connect();
    reader = { query: client.query.bind(client) as never, close: () => client.end() };
  }
  const manifest = await readManifest(reader, storeFile, atSupplierNow);
  await reader.close();
  checkInFlight(manifest);
  await writeFile(join(out, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(work, { recursive: true, force: true });
}

/** A fixture that does not hold every kind of work in flight would let the upgrade test pass on nothing. */
function checkInFlight(m: Manifest): void {
  const problems: string[] = [];
  for (const t of [...TICKETS.reminders, ...TICKETS.expiries]) {
    if (m.orders[t]?.status !== "awaiting_approval") problems.push(`${t} is ${m.orders[t]?.status}`);
  }
  for (const t of TICKETS.events) {
    if (!m.waitingEvents.some((e) => e.ticket === t)) problems.push(`${t} has no event waiting`);
  }
  for (const t of m.retried) {
    const job = m.jobs.find((j) => j.queue === "place-order" && j.orderId === m.orders[t]?.orderId);
    if (!job || !["created", "retry", "active"].includes(job.state))
      problems.push(`${t}'s placement is ${job?.state}`);
  }
  for (const t of TICKETS.placedUnknown)
    if (!m.atSupplier.includes(t)) problems.push(`${t} is not at the supplier`);
  const failed = m.failedJobs.map((j) => j.ticket).sort();
  if (failed.join() !== [...TICKETS.failed].sort().join()) problems.push(`failed jobs are ${failed}`);
  if (problems.length > 0) throw new Error(`the fixture lacks work in flight: ${problems.join("; ")}`);
}

async function readManifest(
  db: { query: Store["query"] },
  storeFile: string,
  atSupplier: Set<string>,
): Promise<Manifest> {
  const { rows: orderRows } = await db.query(
    `SELECT id, customer_reference, external_document_number, status, slack_channel_id, slack_message_ts, approval
       FROM orders ORDER BY customer_reference`,
  );
  const orders: Record<string, ManifestOrder> = {};
  const approvals: Record<string, { remindAt: string; expireAt: string }> = {};
  for (const r of orderRows) {
    orders[r.customer_reference] = {
      ticket: r.customer_reference,
      orderId: r.id,
      documentNumber: r.external_document_number,
      status: r.status,
      channel: r.slack_channel_id,
      messageTs: r.slack_message_ts,
    };
    if (r.approval) approvals[r.customer_reference] = r.approval;
  }
  const ticketOf = new Map(Object.values(orders).map((o) => [o.orderId, o.ticket]));
  const { rows: eventRows } = await db.query(
    "SELECT id, order_id, type FROM supplier_events WHERE posted_at IS NULL ORDER BY occurred_at",
  );
  const { rows: jobRows } = await db.query(
    "SELECT id::text, name, state::text, start_after, data FROM pgboss.job ORDER BY created_on, id",
  );
  const jobs: ManifestJob[] = jobRows.map((j) => ({
    id: j.id,
    queue: j.name,
    state: j.state,
    startAfter: new Date(j.start_after).toISOString(),
    orderId: (j.data as { orderId?: string } | null)?.orderId ?? null,
  }));
  const approvalOf = (ticket: string, approver: string) => ({
    ticket,
    approver,
    remindAt: approvals[ticket]?.remindAt ?? "",
    expireAt: approvals[ticket]?.expireAt ?? "",
  });
  const version = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")).version as string;
  return {
    version,
    revision: args.revision ?? "",
    store: storeKind,
    stop: stopKind,
    builtAt: new Date().toISOString(),
    files: {
      store: storeFile,
      sandbox: "sandbox.json",
      slack: "slack.json",
      customerConfig: "order-desk.config.yml",
    },
    orders,
    atSupplier: [...atSupplier].sort(),
    retried: [...TICKETS.retried, ...TICKETS.placedUnknown],
    waitingEvents: eventRows.map((e) => ({
      eventId: e.id,
      ticket: ticketOf.get(e.order_id) ?? "",
      type: e.type,
    })),
    remindersDue: TICKETS.reminders.map((t) => approvalOf(t, APPROVER_REMIND)),
    expiriesDue: TICKETS.expiries.map((t) => approvalOf(t, APPROVER_EXPIRE)),
    failedJobs: jobs
      .filter((j) => j.state === "failed")
      .map((j) => ({ jobId: j.id, queue: j.queue, ticket: ticketOf.get(j.orderId ?? "") ?? "" })),
    jobs,
  };
}

await main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
