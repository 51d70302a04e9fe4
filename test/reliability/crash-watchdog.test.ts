/**
 * A kill -9 between a due watchdog check and its report, on each store: `order-desk start` in a child process
 * places an order through Slack that the sandbox never says a word about, with `acceptedWithinHours: 0` in the
 * customer file (the child process runs on the real clock, and 0 is the smallest threshold the file allows: the
 * "no word from the supplier" check is due the moment the order is placed). The report job posts the thread reply,
 * then opens the admins' attention item and posts its alert; one of those two Slack calls hangs (or takes effect
 * and its answer is lost), and the process is SIGKILLed right then, and started again. The restarted process
 * finishes the report: one reply in the order's thread, one alert in the admin channel, one open item.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.ts";
import { SlackUser } from "../../tools/fake-slack/index.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { scanFile } from "./harness/logs.ts";
import { OrderDeskProcess } from "./harness/process.ts";
import { logPath, record } from "./harness/results.ts";
import { orderForm, requestsFor } from "./harness/slack-driver.ts";
import { type ChildStore, freshDatabase, pgliteChildStore } from "./harness/stores.ts";
import {
  ADMIN_CHANNEL,
  AGENT,
  CHANNELS,
  CUSTOMER_CONFIG,
  freePort,
  startWorld,
  type World,
} from "./harness/world.ts";

const CHANNEL = CHANNELS[6] as string;
const TICKET = "CRW-1";
/** The start of both the thread reply and the alert of the "not accepted" condition. */
const NO_WORD = "No word from the supplier";

/**
 * Which post of the report is in flight at the kill (the thread reply, or the admins' alert after it), and what
 * Slack does with it: `hang`, the call never takes effect; `lost_answer`, Slack posts it but the answer is lost.
 */
const CASES = TEST_BACKENDS.flatMap((backend) =>
  (["reply", "alert"] as const).flatMap((post) =>
    (["hang", "lost_answer"] as const).map((mode) => [backend, post, mode] as const),
  ),
);

describe.each(CASES)(
  "a kill between a due watchdog check and its report, on %s (the %s's call: %s)",
  (backend, post, mode) => {
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

    it("reports the stalled order exactly once after the restart", async () => {
      const t0 = Date.now();
      world = await startWorld({
        speed: 1,
        seed: `crash-watchdog-${backend}-${post}-${mode}`,
        sandbox: { stall: [{ match: TICKET, silent: true }] },
      });
      store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
      dir = await mkdtemp(join(tmpdir(), "od-crash-watchdog-"));
      const customerConfig = join(dir, "order-desk.config.yml");
      await writeFile(
        customerConfig,
        `${await readFile(CUSTOMER_CONFIG, "utf8")}\nwatchdog:\n  acceptedWithinHours: 0\n`,
      );
      const logFile = logPath(`crash-watchdog-${backend}-${post}-${mode}`);
      // The ops listener (metrics) on a port known across the restart.
      const opsUrl = `http://127.0.0.1:${await freePort()}`;
      app = new OrderDeskProcess({
        env: world.env({
          ...store.env,
          ORDER_DESK_CONFIG: customerConfig,
          WEBHOOK_SETTLE_MS: "0",
          OPS_HTTP_PORT: new URL(opsUrl).port,
        }),
        logFile,
        url: world.appUrl,
      });
      const running = app;
      await running.start();
      const fake = world.fake;

      // Armed before the order exists: the report follows its placement at once. Scoped to the one post.
      const scope = { channel: post === "reply" ? CHANNEL : ADMIN_CHANNEL, text: NO_WORD };
      if (mode === "hang") fake.hangNext("chat.postMessage", 1, scope);
      else fake.loseAnswerNext("chat.postMessage", 1, scope);
      const inFlight = () =>
        fake
          .calls("chat.postMessage")
          .some(
            (c) =>
              c.httpStatus === 0 &&
              JSON.stringify(c.args).includes(scope.channel) &&
              JSON.stringify(c.args).includes(NO_WORD),
          );

      const alice = new SlackUser({ fake, requests: requestsFor(world), userId: AGENT, timeoutMs: 10_000 });
      const { triggerId } = await alice.runCommand({ channel: CHANNEL, command: "/order", text: TICKET });
      const view = await alice.openedModal(triggerId);
      const submitted = await alice.submit(view.id, orderForm(TICKET));
      expect(submitted.outcome.outcome).toBe("closed");
      const placed = await fake.waitFor(() => fake.topLevel(CHANNEL).find((m) => m.text.includes(TICKET)), {
        timeoutMs: 30_000,
        what: "the order's message",
      });
      await fake.waitFor(inFlight, { timeoutMs: 60_000, what: `the ${post}'s post in flight` });
      await running.kill();
      await running.start();

      const replies = () => fake.thread(CHANNEL, placed.ts).filter((m) => m.text.includes(NO_WORD));
      const alerts = () => fake.topLevel(ADMIN_CHANNEL).filter((m) => m.text.includes(NO_WORD));
      await fake.waitFor(() => replies().length > 0 && alerts().length > 0, {
        timeoutMs: 150_000,
        what: "the watchdog's reply and alert after the restart",
      });
      // A post whose answer was lost is in Slack before the restarted process has dealt with it: done once no
      // watchdog job is left (the killed one included), with the reply and the alert recorded.
      for (const deadline = Date.now() + 150_000; (await watchdogJobs(opsUrl)) !== 0; await sleep(500)) {
        if (Date.now() > deadline) throw new Error("the watchdog's jobs never finished after the restart");
      }
      // Time for a second post to show up, were there one.
      await sleep(3_000);
      const exitCode = await running.stop();
      const items = await openItems(store);
      const leaks = scanFile(logFile, world.secrets());
      record(
        {
          scenario: `watchdog report across a kill (${backend}, ${post} ${mode})`,
          eventsSent: 1,
          eventsPosted: Math.min(1, replies().length),
          eventsDoubled: Math.max(0, replies().length - 1) + Math.max(0, alerts().length - 1),
          eventsLost: replies().length === 0 || alerts().length === 0 ? 1 : 0,
          crashes: running.unexpectedExits.length + (exitCode === 0 ? 0 : 1),
          kills: running.kills,
          leaks: leaks.length,
          durationMs: Date.now() - t0,
          notes: [
            `killed with the ${post}'s post in flight (${mode}); ${replies().length} replies, ${alerts().length} alerts, ${items.length} open items after the restart`,
          ],
        },
        world.secrets(),
      );
      expect(replies().map((m) => m.text)).toEqual([expect.stringContaining(`${NO_WORD}: order ${TICKET}`)]);
      expect(alerts()).toHaveLength(1);
      expect(items).toEqual([{ kind: "stalled_order", alertTs: alerts()[0]?.ts }]);
      expect(running.unexpectedExits).toEqual([]);
      expect(exitCode).toBe(0);
      expect(leaks).toEqual([]);
    }, 300_000);
  },
);

/** Watchdog jobs waiting or running, as the process's /metrics tells them (null: not readable). */
async function watchdogJobs(opsUrl: string): Promise<number | null> {
  try {
    const res = await fetch(`${opsUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    const depth = /^order_desk_queue_depth\{queue="watchdog"\} (\d+)$/m.exec(await res.text());
    return depth ? Number(depth[1]) : null;
  } catch {
    return null;
  }
}

/** The open attention items, read from the store once the process has stopped (PGlite has one user at a time). */
async function openItems(store: ChildStore): Promise<Array<{ kind: string; alertTs: string | null }>> {
  const db = await openStore(
    store.env.DATABASE_URL
      ? { databaseUrl: store.env.DATABASE_URL, migrate: false }
      : { dataDir: store.env.ORDER_DESK_DATA_DIR as string, migrate: false },
  );
  try {
    const { rows } = await db.query(
      `SELECT kind, alert_ts AS "alertTs" FROM attention_items WHERE resolved_at IS NULL ORDER BY opened_at`,
    );
    return rows as Array<{ kind: string; alertTs: string | null }>;
  } finally {
    await db.close();
  }
}
