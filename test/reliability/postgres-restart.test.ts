/**
 * PostgreSQL restarted under a running `order-desk start` (a throwaway server this test starts itself, so the
 * shared one is untouched): the server is killed (`pg_ctl stop -m immediate`) while orders come in and the
 * supplier delivers webhooks, and started again a few seconds later. Order Desk recovers without a restart of
 * its own; webhook deliveries during the outage get 503 and succeed on redelivery; nothing is lost or doubled.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { scanFile } from "./harness/logs.ts";
import {
  startThrowawayPostgres,
  type ThrowawayPostgres,
  throwawayPostgresUnavailable,
} from "./harness/postgres-server.ts";
import { OrderDeskProcess } from "./harness/process.ts";
import { logPath, record } from "./harness/results.ts";
import { orderAll, orderThroughSlack, slackRequests } from "./harness/slack-driver.ts";
import { freshDatabase, seededRandom } from "./harness/stores.ts";
import { verifyWhenSettled } from "./harness/verify.ts";
import { CHANNELS, startWorld, type World } from "./harness/world.ts";

const SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ORDERS = Number(process.env.RELIABILITY_PG_ORDERS ?? 16);
const OUTAGE_MS = 4_000;
const unavailable = throwawayPostgresUnavailable();

describe.skipIf(unavailable !== null)("PostgreSQL restarted under a running Order Desk", () => {
  let world: World | undefined;
  let server: ThrowawayPostgres | undefined;
  let app: OrderDeskProcess | undefined;
  afterAll(async () => {
    await app?.close();
    await world?.close();
    await server?.close();
  });

  it("recovers without restarting, answers webhooks 503 meanwhile, and loses or doubles nothing", async () => {
    const t0 = Date.now();
    const random = seededRandom(SEED);
    server = await startThrowawayPostgres();
    const database = await freshDatabase(server.url);
    world = await startWorld({ speed: 150, seed: `pg-restart-${SEED}` });
    const w = world;
    const logFile = logPath("postgres-restart");
    app = new OrderDeskProcess({ env: w.env(database.env), logFile, url: w.appUrl });
    const running = app;
    const crashed = () => running.unexpectedExits.length > 0;
    await app.start();
    const pid = app.pid;
    const requests = slackRequests(w.fake, w.appUrl, w.signingSecret);

    let outage: { from: number; to: number } | null = null;
    const db = server;
    const script = (async () => {
      await sleep(4_000);
      const from = Date.now();
      await db.crash();
      await sleep(OUTAGE_MS);
      await db.start();
      outage = { from, to: Date.now() };
    })();
    const deadline = Date.now() + 120_000;
    const specs = Array.from({ length: ORDERS }, (_, i) => ({
      ticket: `PGR-${1001 + i}`,
      channel: CHANNELS[i % CHANNELS.length] as string,
    }));
    const outcomes = await orderAll(
      specs,
      2,
      (spec) => orderThroughSlack(w.fake, requests, spec, { deadline, abort: crashed }),
      () => 300 + random() * 700,
    );
    await script;
    const accepted = outcomes.filter((o) => o.accepted);
    const refused = outcomes.filter((o) => !o.accepted);
    const verdict = await verifyWhenSettled(w.sandbox, w.fake, ORDERS, accepted, {
      stallMs: 30_000,
      capMs: 120_000,
      abort: crashed,
    });

    // Webhook deliveries answered 503 while the database was down, then delivered.
    let answered503 = 0;
    let deliveredAfter503 = 0;
    for (const order of await w.sandbox.orders({ limit: 10_000 })) {
      const detail = await w.sandbox.order(order.correlationId);
      for (const e of detail?.events ?? []) {
        if (e.delivery.attempts.some((a) => a.httpStatus === 503)) {
          answered503++;
          if (e.delivery.state === "delivered") deliveredAfter503++;
        }
      }
    }
    const submitRetries = outcomes.reduce((n, o) => n + o.submitAttempts - 1, 0);
    const samePid = app.pid === pid;
    const exitCode = await app.stop();
    const leaks = scanFile(logFile, w.secrets());
    const window = outage as { from: number; to: number } | null;
    record(
      {
        scenario: "PostgreSQL restart",
        ...verdict.orders,
        ...verdict.events,
        crashes: app.unexpectedExits.length + (exitCode === 0 ? 0 : 1) + (samePid ? 0 : 1),
        durationMs: Date.now() - t0,
        notes: [
          `database down ${window ? ((window.to - window.from) / 1000).toFixed(1) : "?"} s; ${answered503} webhook events answered 503 at least once, ${deliveredAfter503} of them delivered on a later attempt; ${submitRetries} modal submissions retried by the user; Order Desk ${samePid ? "kept running (same process)" : "RESTARTED"}; settled ${verdict.settled ? "yes" : "NO"} after ${(verdict.waitedMs / 1000).toFixed(1)} s; seed ${SEED}`,
          ...verdict.problems,
          ...refused.map((o) => `${o.ticket} never accepted: ${o.problems.slice(-3).join(" | ")}`),
          ...app.unexpectedExits.map((e) => `unexpected exit ${e.code ?? e.signal}: ${e.stderr.slice(-500)}`),
          ...leaks.map((l) => `${l.secret} in the log, line ${l.line}`),
        ],
      },
      w.secrets(),
    );

    expect(app.unexpectedExits).toEqual([]);
    expect(samePid).toBe(true);
    expect(refused.map((o) => `${o.ticket}: ${o.problems.join(" | ")}`)).toEqual([]);
    expect(verdict.problems).toEqual([]);
    expect(verdict.orders).toMatchObject({ ordersPlaced: ORDERS, ordersDoubled: 0, ordersLost: 0 });
    expect(verdict.events).toMatchObject({ eventsDoubled: 0, eventsLost: 0, eventsOutOfOrder: 0 });
    expect(answered503).toBeGreaterThan(0);
    expect(deliveredAfter503).toBe(answered503);
    expect(exitCode).toBe(0);
    expect(leaks).toEqual([]);
  });
});
