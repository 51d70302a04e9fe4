/**
 * Crash and restart: `order-desk start` in a child process is SIGKILLed at random moments (at least five times)
 * and restarted while agents place orders through Slack — signed HTTP requests, or in Socket Mode envelopes
 * over the connection the process opens — and the supplier's webhooks keep coming. Afterwards every accepted
 * order is at the supplier exactly once, has exactly one order message, and every event the supplier sent is
 * in that message's thread exactly once, in occurredAt order; in Socket Mode no envelope was acked twice.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import type { Backend } from "../../helpers/db.ts";
import { scanFile } from "./logs.ts";
import { OrderDeskProcess } from "./process.ts";
import { logPath, record } from "./results.ts";
import { orderAll, orderThroughSlack, requestsFor } from "./slack-driver.ts";
import { ackGaps, describeGaps, describeSocket, socketFigures } from "./socket-figures.ts";
import {
  type ChildStore,
  describeAppDatabase,
  describeOrderEvents,
  freshDatabase,
  pgliteChildStore,
  seededRandom,
} from "./stores.ts";
import { verifyWhenSettled } from "./verify.ts";
import { CHANNELS, startWorld, type World } from "./world.ts";

const MIN_KILLS = Number(process.env.RELIABILITY_KILLS ?? 5);
const SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const FULL = process.env.RELIABILITY_FULL === "1";
/**
 * Orders per backend. The issue asks for 100: each brings ~10 supplier events to thread, and the whole suite
 * must fit CI, so the default is 40 per backend; RELIABILITY_FULL=1 runs 100 (and waits longer to settle).
 */
const ORDERS = Number(process.env.RELIABILITY_ORDERS ?? (FULL ? 100 : 40));
/** Orders are spread over about this long, so that the kills land while they come in. */
const SUBMIT_SPAN_MS = Number(process.env.RELIABILITY_SUBMIT_SPAN_MS ?? 20_000);
const AGENTS = 3;
/** The most it waits for the backlog to settle, as long as posting makes progress (verifyWhenSettled). */
const SETTLE_MS = Number(process.env.RELIABILITY_SETTLE_MS ?? (FULL ? 400_000 : 240_000));
/** Ordering's own deadline. */
const ORDERING_MS = 150_000;

export interface CrashOptions {
  /** How Slack reaches Order Desk (default HTTP). */
  slackMode?: "http" | "socket";
  /** Orders and minimum kills (default: the knobs above). */
  orders?: number;
  kills?: number;
  /** Orders are spread over about this long (default SUBMIT_SPAN_MS). */
  spanMs?: number;
}

/** The scenario on one backend (a file per backend and mode, so that vitest runs them in parallel). */
export function crashScenario(backend: Backend, options: CrashOptions = {}): void {
  const socket = options.slackMode === "socket";
  const minKills = options.kills ?? MIN_KILLS;
  const spanMs = options.spanMs ?? SUBMIT_SPAN_MS;
  const label = socket ? `${backend}, Socket Mode` : backend;
  describe(`Order Desk killed with SIGKILL at random moments, on ${label}`, () => {
    let world: World | undefined;
    let store: ChildStore | undefined;
    let app: OrderDeskProcess | undefined;
    afterAll(async () => {
      await app?.close();
      await world?.close();
      await store?.cleanup();
    });

    it(
      "places every accepted order once and threads every supplier event once, in order",
      async () => {
        const t0 = Date.now();
        const random = seededRandom(SEED + (backend === "postgres" ? 1 : 0));
        world = await startWorld({
          speed: 150,
          seed: `crash-${backend}${socket ? "-socket" : ""}-${SEED}`,
          slackMode: options.slackMode ?? "http",
        });
        store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
        const logFile = logPath(`crash-${backend}${socket ? "-socket" : ""}`);
        app = new OrderDeskProcess({ env: world.env(store.env), logFile, url: world.appUrl });
        const running = app;
        /** A crash nobody caused (not one of our SIGKILLs) ends the run early: it is the finding. */
        const crashed = () => running.unexpectedExits.length > 0;
        await running.start();

        const count = options.orders ?? ORDERS;
        const specs = Array.from({ length: count }, (_, i) => ({
          ticket: `REL-${1001 + i}`,
          channel: CHANNELS[i % CHANNELS.length] as string,
        }));
        const requests = requestsFor(world);
        let submitting = true;
        const killMoments: number[] = [];
        const killer = (async () => {
          while (submitting || running.kills < minKills) {
            // Up for 0.7–3.5 s: long enough to take some orders, short enough to die in the middle of others.
            await sleep(700 + random() * 2_800);
            // Socket Mode: die with an envelope on the connection not yet acked, when one comes within 2 s.
            if (socket)
              await world?.fake.waitFor(() => envelopeInFlight(world), { timeoutMs: 2_000 }).catch(() => {});
            killMoments.push(Date.now());
            await running.kill();
            await sleep(random() * 400);
            await running.start();
          }
        })();
        const deadline = Date.now() + ORDERING_MS;
        const ordering = orderAll(
          specs,
          3,
          (spec) => orderThroughSlack(world!.fake, requests, spec, { deadline, abort: crashed }),
          // Think time so that the orders span about spanMs (mean spanMs × AGENTS / orders).
          () => random() * ((2 * spanMs * AGENTS) / count),
        );
        const outcomes = await ordering.finally(() => {
          submitting = false;
        });
        await killer;
        const accepted = outcomes.filter((o) => o.accepted);
        const refused = outcomes.filter((o) => !o.accepted);

        const verdict = await verifyWhenSettled(world.sandbox, world.fake, count, accepted, {
          stallMs: 30_000,
          capMs: SETTLE_MS,
          abort: crashed,
        });
        const database =
          !verdict.settled && store.env.DATABASE_URL
            ? await describeAppDatabase(store.env.DATABASE_URL)
            : null;
        const troubled = [...new Set(verdict.problems.map((p) => p.split(":")[0] ?? ""))].filter((t) =>
          t.startsWith("REL-"),
        );
        const eventLog =
          store.env.DATABASE_URL && troubled.length > 0
            ? await describeOrderEvents(store.env.DATABASE_URL, troubled.slice(0, 3))
            : [];
        const exitCode = await running.stop();
        const leaks = scanFile(logFile, world.secrets());
        const figures = socket ? socketFigures(world.fake) : null;
        const result = {
          scenario: `crash/restart (${label})`,
          ...verdict.orders,
          ...verdict.events,
          ...(figures
            ? {
                envelopesSent: figures.envelopesSent,
                envelopesAcked: figures.envelopesAcked,
                envelopesRedelivered: figures.envelopesRedelivered,
                envelopesAckedTwice: figures.envelopesAckedTwice,
              }
            : {}),
          crashes: running.unexpectedExits.length + (exitCode === 0 ? 0 : 1),
          kills: running.kills,
          durationMs: Date.now() - t0,
          notes: [
            `${count} orders (${accepted.length} accepted), ${running.kills} SIGKILLs at ${killMoments
              .map((at) => `${((at - t0) / 1000).toFixed(1)}s (${new Date(at).toISOString().slice(11, 23)})`)
              .join(", ")}; seed ${SEED}; restart to ready ${Math.min(...running.startMs)}–${Math.max(
              ...running.startMs,
            )} ms; ${outcomes.reduce((n, o) => n + o.submitAttempts, 0)} submissions for ${count} orders; settled ${
              verdict.settled ? "yes" : "NO"
            } after ${(verdict.waitedMs / 1000).toFixed(1)} s`,
            ...(figures
              ? [
                  describeSocket(figures),
                  `kill → next ack (restart, reconnect, the agent's retry): ${describeGaps(ackGaps(world.fake, killMoments))}`,
                ]
              : []),
            ...(database ? [database] : []),
            ...eventLog,
            ...verdict.problems,
            ...refused.map((o) => `${o.ticket} never accepted: ${o.problems.slice(-3).join(" | ")}`),
            ...running.unexpectedExits.map(
              (e) => `unexpected exit ${e.code ?? e.signal}: ${e.stderr.slice(-500)}`,
            ),
            ...leaks.map((l) => `${l.secret} in the log, line ${l.line}`),
          ],
        };
        record(result, world.secrets());

        expect(running.kills).toBeGreaterThanOrEqual(minKills);
        if (figures) expect(figures.envelopesAckedTwice).toBe(0);
        expect(refused.map((o) => `${o.ticket}: ${o.problems.join(" | ")}`)).toEqual([]);
        expect(verdict.problems).toEqual([]);
        expect(verdict.orders).toMatchObject({ ordersPlaced: count, ordersDoubled: 0, ordersLost: 0 });
        expect(verdict.events).toMatchObject({ eventsDoubled: 0, eventsLost: 0, eventsOutOfOrder: 0 });
        expect(running.unexpectedExits).toEqual([]);
        expect(exitCode).toBe(0);
        expect(leaks).toEqual([]);
      },
      ORDERING_MS + SETTLE_MS + 60_000,
    );
  });
}

/** An envelope Slack sent over a connection still open, and the app has not acked yet. */
function envelopeInFlight(world: World | undefined): boolean {
  const open = new Set(world?.fake.socketMode.openConnections().map((c) => c.id));
  return (world?.fake.socketMode.envelopes() ?? []).some(
    (e) => e.ack === undefined && open.has(e.connectionId),
  );
}
