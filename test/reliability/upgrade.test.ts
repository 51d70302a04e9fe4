/**
 * An existing installation upgrades in place and loses nothing. Each fixture (harness/upgrade.ts) is a store the
 * previous release left with work in flight, stopped cleanly (SIGTERM) or killed (SIGKILL): placements in retry
 * (one of them already taken by the supplier, its answer lost), supplier events stored but not posted, approvals
 * with their reminder or their expiry due, and placements failed for good. The current Order Desk starts on it
 * against the sandbox (holding the orders it held then) and the fake Slack (holding the messages it held then),
 * with every fault cleared, and runs until its queues are quiet. Then: every placement in flight is at the
 * supplier exactly once and none held before is placed again; every waiting event is in its thread exactly once;
 * every due reminder is sent once and every due expiry happens once (and nothing else expires); the failed jobs
 * are still listed by `order-desk jobs list --failed` and an admin's `order-desk jobs retry` places each once.
 * PostgreSQL fixtures run when DATABASE_URL is set.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { runJobs } from "../../src/cli/jobs.ts";
import type { FailedJob, QueueName } from "../../src/jobs/index.ts";
import { createLogger } from "../../src/log.ts";
import type { OrderDesk } from "../../src/main.ts";
import type { Store } from "../../src/store/db.ts";
import { CHANNELS, DESK_ENV, SLACK } from "../../tools/upgrade-fixture/workspace.ts";
import { startWorld, type World } from "../../tools/world.ts";
import { openTestStore, TEST_BACKENDS } from "../helpers/db.ts";
import { scanFile } from "./harness/logs.ts";
import { logPath, record } from "./harness/results.ts";
import {
  eventIdsIn,
  type Fixture,
  loadFixture,
  restoreSandbox,
  restoreSlack,
  restoreStore,
  timeoutFor,
  VARIANTS,
} from "./harness/upgrade.ts";
import { retrySchedule } from "./harness/world.ts";

/** A one-parcel order's next step is days away: nothing but the steps due at once is emitted. */
const SANDBOX_SPEED = 0.01;
/** Beyond the moment an effect is due: time for the app to start, migrate and work its queues. */
const SETTLE_MS = 60_000;

async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = SETTLE_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

/** `order-desk jobs …` in this process: on PostgreSQL through DATABASE_URL as an operator runs it; on the
 * embedded store (whose directory the running app holds) on the app's own store, as the jobs API. */
async function jobsCommand(argv: string[], url: string | null, store: Store) {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: new Writable({
      write(chunk, _encoding, done) {
        stdout += String(chunk);
        done();
      },
    }),
    stderr: { write: (chunk: string) => (stderr += chunk) },
  };
  const code =
    url === null ? await runJobs(argv, {}, io, { store }) : await runJobs(argv, { DATABASE_URL: url }, io);
  return { code, stdout, stderr };
}

const variants = VARIANTS.filter((v) =>
  TEST_BACKENDS.includes(v.startsWith("postgres") ? "postgres" : "pglite"),
);

describe.each(variants)("upgrading a store the previous release left with work in flight: %s", (variant) => {
  let world: World | undefined;
  let desk: OrderDesk | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  const logEnded = { value: false };
  let log: WriteStream | undefined;
  afterAll(async () => {
    await desk?.stop().catch(() => {});
    logEnded.value = true;
    await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
    await world?.close();
    await cleanup?.();
  });

  it("runs every job in flight exactly once and places nothing twice", {
    timeout: timeoutFor(variant, 180_000),
  }, async () => {
    const t0 = Date.now();
    const fixture: Fixture = await loadFixture(variant);
    const m = fixture.manifest;
    const store = await restoreStore(fixture);
    cleanup = store.cleanup;
    const sandboxDb = await openTestStore("pglite");
    await restoreSandbox(fixture, sandboxDb);
    world = await startWorld({
      // The supplier's fulfilment all but halted: what is checked is the work the fixture left in flight, not the
      // events of the orders' later steps (their delivery to the app is what the other scenarios check).
      speed: SANDBOX_SPEED,
      seed: `upgrade-${variant}`,
      customerConfig: `${fixture.dir}/${m.files.customerConfig}`,
      // Deliveries the fixture left pending are still retried within seconds (the schedule is divided by speed).
      sandbox: { store: sandboxDb, retryScheduleMs: retrySchedule(SANDBOX_SPEED) },
      slack: SLACK,
      env: DESK_ENV,
    });
    const fake = world.fake;
    await restoreSlack(fixture, fake);

    const logFile = logPath(`upgrade-${variant}`);
    const stream = createWriteStream(logFile, { flags: "a" });
    log = stream;
    const logger = createLogger(
      { level: "info" },
      { write: (line: string) => void (logEnded.value || stream.write(line)) },
    );
    const started = Date.now();
    desk = await world.startDesk({ logger, env: store.env });
    const app = desk;

    const order = (ticket: string) => {
      const o = m.orders[ticket];
      if (!o) throw new Error(`${variant}: no order ${ticket} in the manifest`);
      return o;
    };
    const atSupplier = async () => (await world!.sandbox.orders()).map((o) => o.customerReference ?? "");
    const count = (held: string[], ticket: string) => held.filter((t) => t === ticket).length;
    const statusOf = async (ticket: string) =>
      (await app.store.query("SELECT status FROM orders WHERE id = $1", [order(ticket).orderId])).rows[0]
        ?.status;
    const remindersIn = (approver: string, ticket: string) =>
      fake
        .dm(approver)
        .filter((msg) => msg.postedAt >= started && /Reminder/.test(msg.text) && msg.text.includes(ticket));
    // The fixture's due times, from the previous release's clock: a freshly built fixture may not be due yet.
    const dueIn = (iso: string) => Math.max(0, Date.parse(iso) - Date.now());

    // (a) The placements in flight reach the supplier; the one it took before is not placed again.
    await waitUntil("every retried placement at the supplier", async () => {
      const held = await atSupplier();
      return m.retried.every((t) => count(held, t) >= 1);
    });

    // (b) Every waiting event in its order's thread.
    const threadOf = (ticket: string) => {
      const o = order(ticket);
      return o.messageTs ? fake.thread(o.channel, o.messageTs) : [];
    };
    await fake.waitFor(
      () => m.waitingEvents.every((e) => eventIdsIn(threadOf(e.ticket)).includes(e.eventId)),
      { timeoutMs: SETTLE_MS, what: "every waiting event posted in its thread" },
    );

    // (c) The reminders due are sent; the expiries due happen.
    for (const r of m.remindersDue) {
      await fake.waitFor(() => remindersIn(r.approver, r.ticket).length > 0, {
        timeoutMs: dueIn(r.remindAt) + SETTLE_MS,
        what: `the reminder of ${r.ticket}`,
      });
    }
    for (const x of m.expiriesDue) {
      await waitUntil(
        `the expiry of ${x.ticket}`,
        async () => (await statusOf(x.ticket)) === "approval_expired",
        dueIn(x.expireAt) + SETTLE_MS,
      );
      await fake.waitFor(() => threadOf(x.ticket).some((msg) => /expired/.test(msg.text)), {
        timeoutMs: SETTLE_MS,
        what: `the expiry of ${x.ticket} told in its thread`,
      });
    }

    // (d) The failed jobs are still listed, and an admin's retry places each once.
    const listed = await jobsCommand(["list", "--failed", "--json"], store.url, app.store);
    expect(listed.code, listed.stderr).toBe(0);
    const failed = JSON.parse(listed.stdout) as FailedJob[];
    // Matched by queue and order, as an admin reads the list: a conversion may give the jobs new ids.
    const ticketOfOrder = new Map(Object.values(m.orders).map((o) => [o.orderId, o.ticket]));
    const listedAs = (j: FailedJob) =>
      `${j.queue} ${ticketOfOrder.get(String((j.data as { orderId?: unknown } | null)?.orderId))}`;
    expect(failed.map(listedAs).sort()).toEqual(m.failedJobs.map((j) => `${j.queue} ${j.ticket}`).sort());
    for (const job of failed) {
      const retried = await jobsCommand(["retry", job.id], store.url, app.store);
      expect(retried.code, `${retried.stdout}${retried.stderr}`).toBe(0);
    }
    await waitUntil("every retried failed placement at the supplier", async () => {
      const held = await atSupplier();
      return m.failedJobs.every((j) => count(held, j.ticket) >= 1);
    });

    // Quiet: nothing due, nothing running, nothing waiting to be retried; only the far expiries scheduled, and the
    // watchdog's checks of the orders placed now (each due at its order's next deadline, days away).
    const farExpiries = m.remindersDue.length;
    await waitUntil("the queues quiet", async () => {
      const stats = await app.jobs.stats();
      const busy = Object.entries(stats).filter(
        ([queue, s]) =>
          s.ready > 0 ||
          s.active > 0 ||
          (queue !== ("watchdog" as QueueName) &&
            s.scheduled > (queue === ("approval-expiry" as QueueName) ? farExpiries : 0)),
      );
      return busy.length === 0;
    });

    const held = await atSupplier();
    const inFlight = [...m.retried, ...m.failedJobs.map((j) => j.ticket)];
    const tickets = [...new Set([...inFlight, ...m.atSupplier])];
    const placedTwice = tickets.filter((t) => count(held, t) > 1);
    const lost = inFlight.filter((t) => count(held, t) === 0);
    const threads = Object.keys(m.orders).map((t) => eventIdsIn(threadOf(t)));
    const postedTwice = threads.flatMap((ids) => ids.filter((id, i) => ids.indexOf(id) !== i));
    const eventsLost = m.waitingEvents.filter((e) => !eventIdsIn(threadOf(e.ticket)).includes(e.eventId));
    const stillWaiting = await Promise.all(m.remindersDue.map((r) => statusOf(r.ticket)));
    const failedAfter = await jobsCommand(["list", "--failed", "--json"], store.url, app.store);
    const leaks = scanFile(logFile, world.secrets());
    await app.stop();
    desk = undefined;
    record(
      {
        scenario: `upgrade from ${m.version} (${variant})`,
        ordersSubmitted: inFlight.length,
        ordersPlaced: inFlight.length - lost.length,
        ordersDoubled: placedTwice.length,
        ordersLost: lost.length,
        eventsSent: m.waitingEvents.length,
        eventsPosted: m.waitingEvents.length - eventsLost.length,
        eventsDoubled: postedTwice.length,
        eventsLost: eventsLost.length,
        leaks: leaks.length,
        durationMs: Date.now() - t0,
        notes: [
          `fixture made by ${m.version} (${m.revision.slice(0, 7)}) on ${m.builtAt}; ${m.jobs.length} jobs in its store`,
        ],
      },
      world.secrets(),
    );

    expect(placedTwice).toEqual([]);
    expect(lost).toEqual([]);
    expect(postedTwice).toEqual([]);
    expect(eventsLost).toEqual([]);
    for (const r of m.remindersDue) {
      expect(remindersIn(r.approver, r.ticket), `${r.ticket}'s reminders`).toHaveLength(1);
      expect(stillWaiting[m.remindersDue.indexOf(r)], `${r.ticket} waits (its expiry is years away)`).toBe(
        "awaiting_approval",
      );
    }
    for (const x of m.expiriesDue) {
      expect(remindersIn(x.approver, x.ticket), `${x.ticket} was reminded before the upgrade`).toHaveLength(
        0,
      );
      expect(
        threadOf(x.ticket).filter((msg) => /expired/.test(msg.text)),
        `${x.ticket}'s expiry`,
      ).toHaveLength(1);
    }
    expect(JSON.parse(failedAfter.stdout), "failed jobs after the admin's retries").toEqual([]);
    expect(leaks).toEqual([]);
    // The workspace and channels are the fixture's: nothing was posted to a channel the fixture does not know.
    expect(Object.values(CHANNELS).every((c) => fake.workspace.channels.has(c))).toBe(true);
  });
});
