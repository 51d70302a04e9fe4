/**
 * Faults around a running `order-desk start` (child process, embedded store) while agents order through Slack:
 * - the supplier: 30 % INTERNAL_SERVER_ERROR, added latency, connection resets before and after placing, and an
 *   outage (3 s here, 10 s with RELIABILITY_FULL=1) → every order placed, none twice;
 * - Slack: bursts of 429 with Retry-After, 5xx answers and calls left hanging past the client's timeout → no
 *   update lost, none doubled;
 * - Secrets Manager unavailable after start → the cached key keeps working; then the key is rotated and the old
 *   one revoked at the supplier → the new key is picked up and no order fails.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { redactApiKey } from "../../src/supplier/keys.ts";
import { scanFile } from "./harness/logs.ts";
import { OrderDeskProcess } from "./harness/process.ts";
import { logPath, record } from "./harness/results.ts";
import { orderAll, orderThroughSlack, slackRequests } from "./harness/slack-driver.ts";
import { type ChildStore, pgliteChildStore, seededRandom } from "./harness/stores.ts";
import { verifyWhenSettled } from "./harness/verify.ts";
import { CHANNELS, SECRET_ID, startWorld, type World } from "./harness/world.ts";

const FULL = process.env.RELIABILITY_FULL === "1";
const SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ORDERS = Number(process.env.RELIABILITY_FAULT_ORDERS ?? (FULL ? 40 : 20));
const OUTAGE_MS = FULL ? 10_000 : 3_000;
/** How long the updates may take to settle once the faults stop: at full size Slack's pace alone needs minutes. */
const SETTLE_MS = FULL ? 240_000 : 120_000;

describe("Order Desk under supplier, Slack and Secrets Manager faults", () => {
  let world: World | undefined;
  let store: ChildStore | undefined;
  let app: OrderDeskProcess | undefined;
  afterAll(async () => {
    await app?.close();
    await world?.close();
    await store?.cleanup();
  });

  it(
    "places every order once and posts every update once, in order, and picks up a rotated key",
    async () => {
      const t0 = Date.now();
      const random = seededRandom(SEED);
      world = await startWorld({ speed: 150, seed: `faults-${SEED}`, extraKeys: 1 });
      const w = world;
      store = await pgliteChildStore();
      const logFile = logPath("faults");
      app = new OrderDeskProcess({
        // A short cache, so the Secrets Manager outage outlasts it: the stale key must keep working.
        env: w.env({ ...store.env, SECRETS_CACHE_TTL_MS: "2000" }),
        logFile,
        url: w.appUrl,
      });
      const running = app;
      const crashed = () => running.unexpectedExits.length > 0;
      await app.start();
      const requests = slackRequests(w.fake, w.appUrl, w.signingSecret);
      const [oldKey, newKey] = w.keys as [string, string];

      const timeline: string[] = [];
      const at = (label: string) => timeline.push(`${((Date.now() - t0) / 1000).toFixed(1)}s ${label}`);
      let rotatedAt = Number.POSITIVE_INFINITY;
      let slackFaults = true;
      // Slack misbehaves in bursts for as long as orders come in and a while after.
      const slack = (async () => {
        while (slackFaults) {
          w.fake.rateLimit({ method: "chat.postMessage", count: 3, retryAfterSec: 1 });
          w.fake.failNext("chat.postMessage", { httpStatus: 503, body: "upstream unavailable" }, 2);
          w.fake.failNext("chat.update", { httpStatus: 500, body: "internal error" }, 2);
          w.fake.rateLimit({ method: "chat.update", count: 2, retryAfterSec: 1 });
          w.fake.hangNext("chat.postMessage", 1);
          await sleep(1_500 + random() * 1_000);
        }
      })();
      const script = (async () => {
        w.sandbox.setFaults({ failRate: 0.3, latencyMs: 150 });
        at("supplier: 30% INTERNAL_SERVER_ERROR, +150 ms");
        await sleep(2_000);
        w.secretsManager.setFailure("unavailable");
        at("Secrets Manager unavailable");
        await sleep(1_000);
        w.sandbox.setFaults({ resetConnections: true });
        at("supplier: connections reset");
        await sleep(1_500);
        w.sandbox.setFaults({ resetConnections: false, resetAfterPlacing: true });
        at("supplier: connections reset after placing");
        await sleep(1_500);
        w.sandbox.setFaults({ resetAfterPlacing: false, outage: true });
        at(`supplier: outage (${OUTAGE_MS / 1000} s)`);
        await sleep(OUTAGE_MS);
        w.sandbox.setFaults({ outage: false });
        at("supplier: outage over");
        await sleep(1_000);
        w.secretsManager.setFailure(null);
        w.secretsManager.putSecretValue(SECRET_ID, newKey);
        w.gateway.revoke(oldKey);
        rotatedAt = Date.now();
        at("Secrets Manager back; key rotated, old key revoked at the supplier");
      })();

      const deadline = Date.now() + 120_000;
      const specs = Array.from({ length: ORDERS }, (_, i) => ({
        ticket: `FLT-${1001 + i}`,
        channel: CHANNELS[i % CHANNELS.length] as string,
      }));
      const outcomes = await orderAll(
        specs,
        2,
        (spec) => orderThroughSlack(w.fake, requests, spec, { deadline, abort: crashed }),
        () => 500 + random() * 1_000,
      );
      await script;
      // A few orders after the rotation, so the new key must be used.
      const after = Array.from({ length: 3 }, (_, i) => ({
        ticket: `ROT-${1001 + i}`,
        channel: CHANNELS[(ORDERS + i) % CHANNELS.length] as string,
      }));
      outcomes.push(
        ...(await orderAll(
          after,
          1,
          (spec) => orderThroughSlack(w.fake, requests, spec, { deadline, abort: crashed }),
          () => 200,
        )),
      );
      await sleep(3_000);
      slackFaults = false;
      await slack;
      w.sandbox.setFaults({ failRate: 0, latencyMs: 0 });
      at("supplier and Slack faults cleared");

      const accepted = outcomes.filter((o) => o.accepted);
      const refused = outcomes.filter((o) => !o.accepted);
      const verdict = await verifyWhenSettled(w.sandbox, w.fake, outcomes.length, accepted, {
        stallMs: 30_000,
        capMs: SETTLE_MS,
        abort: crashed,
      });
      const exitCode = await app.stop();
      const leaks = scanFile(logFile, w.secrets());

      const placed = await w.sandbox.orders({ limit: 10_000 });
      const rotated = placed.filter((o) => o.customerReference?.startsWith("ROT-"));
      const oldRedacted = redactApiKey(oldKey);
      const newRedacted = redactApiKey(newKey);
      // By when the gateway let the call through: a call admitted with the old key just before the revocation
      // can still be accepted by the (slowed-down) sandbox just after it.
      const placedAfterRotation = placed.filter(
        (o) => (w.gateway.admittedAt.get(o.customerReference ?? "") ?? 0) > rotatedAt,
      );
      const keyUse = `${placed.filter((o) => o.apiKey === oldRedacted).length} with the first key, ${
        placed.filter((o) => o.apiKey === newRedacted).length
      } with the rotated key; ${w.gateway.callsByKeySuffix.get(oldKey.slice(-4)) ?? 0} calls with the first key in all`;
      const slackCalls = w.fake.calls();
      const slackFaultsSeen = {
        "429": slackCalls.filter((c) => c.httpStatus === 429).length,
        "5xx": slackCalls.filter((c) => c.httpStatus >= 500).length,
        hung: slackCalls.filter((c) => c.httpStatus === 0).length,
      };
      record(
        {
          scenario: "faults (supplier, Slack, secrets)",
          ...verdict.orders,
          ...verdict.events,
          crashes: app.unexpectedExits.length + (exitCode === 0 ? 0 : 1),
          durationMs: Date.now() - t0,
          notes: [
            `${outcomes.length} orders, ${accepted.length} accepted; seed ${SEED}; settled ${verdict.settled ? "yes" : "NO"} after ${(
              verdict.waitedMs / 1000
            ).toFixed(1)} s`,
            `Slack faults answered: ${slackFaultsSeen["429"]}× 429, ${slackFaultsSeen["5xx"]}× 5xx, ${slackFaultsSeen.hung}× left hanging`,
            `API keys: ${keyUse}`,
            timeline.join("; "),
            ...verdict.problems,
            ...refused.map((o) => `${o.ticket} never accepted: ${o.problems.slice(-3).join(" | ")}`),
            ...app.unexpectedExits.map(
              (e) => `unexpected exit ${e.code ?? e.signal}: ${e.stderr.slice(-500)}`,
            ),
            ...leaks.map((l) => `${l.secret} in the log, line ${l.line}`),
          ],
        },
        w.secrets(),
      );

      expect(refused.map((o) => `${o.ticket}: ${o.problems.join(" | ")}`)).toEqual([]);
      expect(verdict.problems).toEqual([]);
      expect(verdict.orders).toMatchObject({
        ordersPlaced: outcomes.length,
        ordersDoubled: 0,
        ordersLost: 0,
      });
      expect(verdict.events).toMatchObject({ eventsDoubled: 0, eventsLost: 0, eventsOutOfOrder: 0 });
      // The rotated key was picked up: every order placed after the rotation used it, the revoked one none.
      expect(rotated).toHaveLength(after.length);
      for (const order of placedAfterRotation)
        expect(order.apiKey, order.customerReference ?? "").toBe(newRedacted);
      expect(slackFaultsSeen["429"]).toBeGreaterThan(0);
      expect(app.unexpectedExits).toEqual([]);
      expect(exitCode).toBe(0);
      expect(leaks).toEqual([]);
    },
    240_000 + SETTLE_MS,
  );
});
