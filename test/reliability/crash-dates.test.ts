/**
 * A kill -9 between a supplier estimate that puts an order at risk and the thread reply that says so, on each store:
 * `order-desk start` in a child process places an order needed in 20 days (through Slack, the sandbox keeping its
 * fulfilment silent); the supplier's signed update then says it arrives in 25. The post-update job records the
 * change and its notice, marks the reply attempted and calls Slack, which hangs (or posts it and loses the answer);
 * the process is SIGKILLed right then, and started again. The restarted process finds the notice unposted, looks
 * for it in the thread, and posts it only if it is not there: one "At risk" reply, one DM to the requester.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { FIELD_BLOCK } from "../../src/slack/blocks/ids.ts";
import { signWebhook } from "../../src/supplier/webhook-signature.ts";
import { SlackUser } from "../../tools/fake-slack/index.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { scanFile } from "./harness/logs.ts";
import { OrderDeskProcess } from "./harness/process.ts";
import { logPath, record } from "./harness/results.ts";
import { orderForm, requestsFor } from "./harness/slack-driver.ts";
import { type ChildStore, freshDatabase, pgliteChildStore } from "./harness/stores.ts";
import { AGENT, CHANNELS, CUSTOMER_CONFIG, startWorld, type World } from "./harness/world.ts";

const DAY = 86_400_000;
const CHANNEL = CHANNELS[5] as string;
const TICKET = "CRD-1";
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * `hang`: the call never takes effect. `lost_answer`: Slack posts the reply but the answer is lost, and the
 * process is killed before its retry: the restarted one must find the reply in the thread, not post it again.
 */
const CASES = TEST_BACKENDS.flatMap((backend) =>
  (["hang", "lost_answer"] as const).map((mode) => [backend, mode] as const),
);

describe.each(CASES)(
  "a kill between an at-risk estimate and its reply, on %s (Slack's call: %s)",
  (backend, mode) => {
    let world: World | undefined;
    let store: ChildStore | undefined;
    let app: OrderDeskProcess | undefined;
    let dir: string | undefined;
    afterAll(async () => {
      await app?.close();
      await world?.close();
      await store?.cleanup();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("tells the order at risk exactly once after the restart", async () => {
      const t0 = Date.now();
      world = await startWorld({
        speed: 1,
        seed: `crash-dates-${backend}-${mode}`,
        sandbox: { stall: [{ match: TICKET, silent: true }] },
      });
      store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
      // Milestones only: the in-transit update gets no reply of its own, so the notice is the next post.
      dir = await mkdtemp(join(tmpdir(), "od-crash-dates-"));
      const customerConfig = join(dir, "order-desk.config.yml");
      await writeFile(
        customerConfig,
        (await readFile(CUSTOMER_CONFIG, "utf8")).replace(/^updates: all$/m, "updates: milestones"),
      );
      const logFile = logPath(`crash-dates-${backend}-${mode}`);
      app = new OrderDeskProcess({
        env: world.env({ ...store.env, ORDER_DESK_CONFIG: customerConfig, WEBHOOK_SETTLE_MS: "0" }),
        logFile,
        url: world.appUrl,
      });
      const running = app;
      await running.start();
      const fake = world.fake;
      const alice = new SlackUser({ fake, requests: requestsFor(world), userId: AGENT, timeoutMs: 10_000 });

      const today = Date.parse(`${isoDay(Date.now())}T00:00:00Z`);
      const neededBy = isoDay(today + 20 * DAY);
      const { triggerId } = await alice.runCommand({ channel: CHANNEL, command: "/order", text: TICKET });
      const view = await alice.openedModal(triggerId);
      const submitted = await alice.submit(view.id, {
        ...orderForm(TICKET),
        [FIELD_BLOCK.neededBy]: neededBy,
      });
      expect(submitted.outcome.outcome).toBe("closed");
      let correlationId = "";
      for (const deadline = Date.now() + 30_000; correlationId === ""; await sleep(200)) {
        const held = (await world.sandbox.orders()).find((o) => o.customerReference === TICKET);
        correlationId = held?.correlationId ?? "";
        if (Date.now() > deadline) throw new Error(`${TICKET} never reached the sandbox`);
      }
      const placed = await fake.waitFor(
        () =>
          fake.topLevel(CHANNEL).find((m) => JSON.stringify(m.versions.at(-1) ?? m).includes(correlationId)),
        { timeoutMs: 30_000, what: "the order's message showing it placed" },
      );

      // The next post is the notice: it hangs, and the process is killed while it does.
      if (mode === "hang") fake.hangNext("chat.postMessage");
      else fake.loseAnswerNext("chat.postMessage");
      const id = `evt_${randomUUID().replace(/-/g, "")}`;
      const body = JSON.stringify({
        id,
        type: "order.shipping_updated",
        occurredAt: new Date().toISOString(),
        correlationId,
        data: {
          parcel: { number: 1, of: 1 },
          carrier: "DHL Express",
          trackingNumber: "1234567890",
          estimatedDelivery: isoDay(today + 25 * DAY),
          status: "in_transit",
          lines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
        },
      });
      const headers = signWebhook({
        id,
        timestamp: Math.floor(Date.now() / 1000),
        body,
        secret: world.webhookSecrets[0] as string,
      });
      const res = await fetch(`${world.appUrl}/webhooks/supplier`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...headers },
      });
      expect(res.status).toBe(200);
      await fake.waitFor(
        () =>
          fake
            .calls("chat.postMessage")
            .some((c) => c.httpStatus === 0 && JSON.stringify(c.args).includes("At risk")),
        { timeoutMs: 30_000, what: "the at-risk reply in flight" },
      );
      await running.kill();
      await running.start();

      const atRisk = () => fake.thread(CHANNEL, placed.ts).filter((m) => m.text.includes("At risk"));
      const dms = () => fake.dm(AGENT).filter((m) => m.text.includes("may arrive late"));
      await fake.waitFor(() => atRisk().length > 0 && dms().length > 0, {
        timeoutMs: 150_000,
        what: "the at-risk reply and DM after the restart",
      });
      // Time for a second post to show up, were there one.
      await sleep(3_000);
      const exitCode = await running.stop();
      const leaks = scanFile(logFile, world.secrets());
      record(
        {
          scenario: `at-risk notice across a kill (${backend}, ${mode})`,
          eventsSent: 1,
          eventsPosted: Math.min(1, atRisk().length),
          eventsDoubled: Math.max(0, atRisk().length - 1) + Math.max(0, dms().length - 1),
          eventsLost: atRisk().length === 0 ? 1 : 0,
          crashes: running.unexpectedExits.length + (exitCode === 0 ? 0 : 1),
          kills: running.kills,
          leaks: leaks.length,
          durationMs: Date.now() - t0,
          notes: [`killed after the at-risk reply's call (${mode}); told after the restart`],
        },
        world.secrets(),
      );
      expect(atRisk().map((m) => m.text)).toEqual([
        expect.stringMatching(/At risk: expected .+, needed by .+/),
      ]);
      expect(dms()).toHaveLength(1);
      expect(running.unexpectedExits).toEqual([]);
      expect(exitCode).toBe(0);
      expect(leaks).toEqual([]);
    }, 300_000);
  },
);
