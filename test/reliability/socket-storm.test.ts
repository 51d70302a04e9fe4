/**
 * A reconnect storm around a running `order-desk start` in Socket Mode (child process, embedded store) while
 * agents order through Slack and a probe asks for the form's country type-ahead every few tens of
 * milliseconds: Slack asks to refresh the connection (`refresh_requested`, `warning`), drops it without a word,
 * answers `apps.connections.open` with 503s and leaves it hanging past SLACK_TIMEOUT_MS, and once goes silent
 * (no pongs) on an open connection. Each disruption waits for Order Desk to be connected again, then a random
 * pause (seeded).
 *
 * What must hold: every order placed once, one message each, every supplier event once in its thread; no
 * envelope acked twice; after every refresh Order Desk asks for the next connection while the old one serves and
 * never closes the old one before another is open (make-before-break), and no command or click found Slack
 * without a connection after a refresh; the process never exited. The notes give, per kind of disruption, the
 * time from it to the next ack, and for a dispatch without a connection what Slack's end held around it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { scanFile } from "./harness/logs.ts";
import { OrderDeskProcess } from "./harness/process.ts";
import { logPath, record } from "./harness/results.ts";
import { orderAll, orderThroughSlack, requestsFor } from "./harness/slack-driver.ts";
import { ackGaps, describeGaps, describeSocket, socketFigures } from "./harness/socket-figures.ts";
import { type ChildStore, pgliteChildStore, seededRandom } from "./harness/stores.ts";
import { verifyWhenSettled } from "./harness/verify.ts";
import { AGENT, CHANNELS, startWorld, type World } from "./harness/world.ts";

const FULL = process.env.RELIABILITY_FULL === "1";
const SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ORDERS = FULL ? 40 : 16;
const SETTLE_MS = FULL ? 240_000 : 120_000;

type Disruption = "refresh_requested" | "warning" | "drop" | "503s" | "hang" | "silent";
const STORM: Disruption[] = [
  "refresh_requested",
  "drop",
  "refresh_requested",
  "503s",
  "warning",
  "hang",
  "refresh_requested",
  "drop",
  "silent",
  "refresh_requested",
  "drop",
  "refresh_requested",
];

describe("Order Desk in Socket Mode through a reconnect storm", () => {
  let world: World | undefined;
  let store: ChildStore | undefined;
  let app: OrderDeskProcess | undefined;
  afterAll(async () => {
    await app?.close();
    await world?.close();
    await store?.cleanup();
  });

  it("reconnects every time, loses and doubles nothing, and is never without a connection on a refresh", async () => {
    const t0 = Date.now();
    const random = seededRandom(SEED);
    world = await startWorld({ speed: 150, seed: `storm-${SEED}`, slackMode: "socket" });
    const w = world;
    store = await pgliteChildStore();
    const logFile = logPath("socket-storm");
    app = new OrderDeskProcess({ env: w.env(store.env), logFile, url: w.appUrl });
    const running = app;
    const crashed = () => running.unexpectedExits.length > 0;
    await running.start();
    const requests = requestsFor(w);
    let lastDisruption = 0;
    /** Connected again: a connection opened since the last disruption, not asked to go. */
    const connected = () =>
      w.fake.socketMode.openConnections().some((c) => !c.disconnect && c.openedAt > lastDisruption);

    // The probe: one type-ahead request at a time, 20 ms apart, so that every gap in service shows.
    let probing = true;
    let probes = 0;
    let probesFailed = 0;
    const probe = (async () => {
      while (probing) {
        probes++;
        try {
          await requests.blockSuggestion({
            userId: AGENT,
            view: { id: "V0PROBE", type: "modal", callback_id: "order_modal", private_metadata: "" },
            actionId: "country",
            blockId: "country",
            value: "neth",
          });
        } catch {
          probesFailed++;
        }
        await sleep(20);
      }
    })();

    const moments = new Map<Disruption, number[]>();
    const storm = (async () => {
      for (const disruption of STORM) {
        await sleep(800 + random() * 1_200);
        await w.fake.waitFor(connected, {
          what: "a connection before the next disruption",
          timeoutMs: 60_000,
        });
        lastDisruption = Date.now();
        moments.set(disruption, [...(moments.get(disruption) ?? []), lastDisruption]);
        if (disruption === "refresh_requested" || disruption === "warning") {
          const [current] = w.fake.socketMode.openConnections().filter((c) => !c.disconnect);
          if (current) w.fake.socketMode.disconnect(disruption, current.id);
        } else if (disruption === "drop") {
          w.fake.socketMode.drop();
        } else if (disruption === "503s") {
          w.fake.failNext("apps.connections.open", { httpStatus: 503 }, 4);
          w.fake.socketMode.drop();
        } else if (disruption === "hang") {
          w.fake.hangNext("apps.connections.open", 1);
          w.fake.socketMode.drop();
        } else {
          w.fake.socketMode.stall();
        }
      }
      await w.fake.waitFor(connected, { what: "a connection after the storm", timeoutMs: 60_000 });
    })();

    const specs = Array.from({ length: ORDERS }, (_, i) => ({
      ticket: `STM-${1001 + i}`,
      channel: CHANNELS[i % CHANNELS.length] as string,
    }));
    const deadline = Date.now() + 150_000;
    const outcomes = await orderAll(
      specs,
      2,
      (spec) => orderThroughSlack(w.fake, requests, spec, { deadline, abort: crashed }),
      () => 1_000 + random() * 1_500,
    );
    await storm;
    probing = false;
    await probe;

    const accepted = outcomes.filter((o) => o.accepted);
    const refused = outcomes.filter((o) => !o.accepted);
    const verdict = await verifyWhenSettled(w.sandbox, w.fake, ORDERS, accepted, {
      stallMs: 30_000,
      capMs: SETTLE_MS,
      abort: crashed,
    });
    const figures = socketFigures(w.fake);
    const all = [...moments.entries()].flatMap(([kind, ats]) => ats.map((at) => ({ kind, at })));
    all.sort((a, b) => a.at - b.at);
    const isRefresh = (kind: Disruption | undefined) => kind === "refresh_requested" || kind === "warning";
    const connections = w.fake.socketMode.connections();
    const opens = w.fake.calls("apps.connections.open");
    /** The connection Slack asked to replace at refresh moment `at` (the storm asks one per refresh). */
    const replacedAt = (at: number) =>
      connections.find(
        (c) => c.disconnect !== undefined && c.disconnect.at >= at && c.disconnect.at - at < 1_000,
      );
    // Make-before-break, from Order Desk's side: after every refresh it asks Slack for the next connection while
    // the old one still serves, and it never closes the old one before another is open.
    const makeBeforeBreak: string[] = [];
    let refreshesChecked = 0;
    for (const { kind, at } of all.filter((d) => isRefresh(d.kind))) {
      const old = replacedAt(at);
      if (!old) {
        makeBeforeBreak.push(`${kind} at ${at}: no connection was asked to go`);
        continue;
      }
      refreshesChecked++;
      const until = old.closedAt ?? Number.POSITIVE_INFINITY;
      if (!opens.some((call) => call.at >= at && call.at <= until))
        makeBeforeBreak.push(`${kind} at ${at}: no apps.connections.open before ${old.id} closed`);
      if (old.closedBy === "app" && old.closedAt !== undefined) {
        const closedAt = old.closedAt;
        const successor = connections.some(
          (c) => c !== old && c.helloAt <= closedAt && (c.closedAt ?? Number.POSITIVE_INFINITY) > closedAt,
        );
        if (!successor)
          makeBeforeBreak.push(`${kind} at ${at}: ${old.id} closed by Order Desk with no other open`);
      }
    }
    // A dispatch that found no connection after a refresh and before any other disruption: make-before-break
    // failed. A disruption is made only once a connection is open, so a dispatch stamped in the same millisecond as
    // one (the clock counts milliseconds) found the previous disruption's outage, not this one's: strictly after.
    const disruptionBefore = (at: number) => all.filter((d) => d.at < at).at(-1);
    const afterRefresh = w.fake.socketMode
      .undelivered()
      .filter((u) => isRefresh(disruptionBefore(u.at)?.kind));
    const around = afterRefresh.map((u) => {
      const rel = (at: number | undefined) => (at === undefined ? "–" : `${at - u.at} ms`);
      const last = disruptionBefore(u.at);
      const held = connections
        .filter(
          (c) => c.openedAt <= u.at + 30_000 && (c.closedAt ?? Number.POSITIVE_INFINITY) >= u.at - 30_000,
        )
        .map(
          (c) =>
            `${c.id} opened ${rel(c.openedAt)}, disconnect ${c.disconnect ? `${c.disconnect.reason} ${rel(c.disconnect.at)}` : "–"}, closed ${rel(c.closedAt)} by ${c.closedBy ?? "–"}`,
        );
      const asked = opens
        .filter((call) => last !== undefined && call.at >= last.at && call.at <= u.at + 30_000)
        .map((call) => `${rel(call.at)} HTTP ${call.httpStatus}`);
      return `${u.type} ${u.deliveryId}: ${last?.kind} ${rel(last?.at)}; ${held.join("; ")}; apps.connections.open ${asked.join(", ") || "none"}`;
    });
    const exitCode = await running.stop();
    const leaks = scanFile(logFile, w.secrets());
    const gaps = [...moments.entries()].map(
      ([kind, ats]) => `${kind} → next ack ${describeGaps(ackGaps(w.fake, ats))}`,
    );

    record(
      {
        scenario: "Socket Mode reconnect storm",
        ...verdict.orders,
        ...verdict.events,
        envelopesSent: figures.envelopesSent,
        envelopesAcked: figures.envelopesAcked,
        envelopesRedelivered: figures.envelopesRedelivered,
        envelopesAckedTwice: figures.envelopesAckedTwice,
        crashes: running.unexpectedExits.length + (exitCode === 0 ? 0 : 1),
        durationMs: Date.now() - t0,
        notes: [
          `${ORDERS} orders (${accepted.length} accepted), ${STORM.length} disruptions; seed ${SEED}; ${outcomes.reduce(
            (n, o) => n + o.submitAttempts,
            0,
          )} submissions; settled ${verdict.settled ? "yes" : "NO"} after ${(verdict.waitedMs / 1000).toFixed(1)} s`,
          describeSocket(figures),
          `probe: ${probes} type-ahead requests, ${probesFailed} without an answer; ${afterRefresh.length} dispatches found no connection after a refresh`,
          ...around,
          `make-before-break checked on ${refreshesChecked} refreshes`,
          ...makeBeforeBreak,
          ...gaps,
          ...verdict.problems,
          ...refused.map((o) => `${o.ticket} never accepted: ${o.problems.slice(-3).join(" | ")}`),
          ...running.unexpectedExits.map(
            (e) => `unexpected exit ${e.code ?? e.signal}: ${e.stderr.slice(-500)}`,
          ),
          ...leaks.map((l) => `${l.secret} in the log, line ${l.line}`),
        ],
      },
      w.secrets(),
    );

    expect(refused.map((o) => `${o.ticket}: ${o.problems.join(" | ")}`)).toEqual([]);
    expect(verdict.problems).toEqual([]);
    expect(verdict.orders).toMatchObject({ ordersPlaced: ORDERS, ordersDoubled: 0, ordersLost: 0 });
    expect(verdict.events).toMatchObject({ eventsDoubled: 0, eventsLost: 0, eventsOutOfOrder: 0 });
    expect(figures.envelopesAckedTwice).toBe(0);
    expect(makeBeforeBreak).toEqual([]);
    expect(around).toEqual([]);
    expect(running.unexpectedExits).toEqual([]);
    expect(exitCode).toBe(0);
    expect(leaks).toEqual([]);
  }, 420_000);
});
