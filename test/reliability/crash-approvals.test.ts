/**
 * Approvals across crashes: `order-desk start` in a child process (each store: PostgreSQL when DATABASE_URL is set) is SIGKILLed at random moments
 * while an approver approves half of the waiting orders and rejects the other half, from the DMs, clicking again
 * whenever a click got no visible answer (a kill between the click and its effect). Afterwards every approved
 * order is at the supplier exactly once, no rejected order is there at all, and every DM shows its decision.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { ACTION, BLOCK } from "../../src/slack/blocks/ids.ts";
import { type FakeMessage, SlackUser } from "../../tools/fake-slack/index.ts";
import type { SlackRequests } from "../../tools/slack-requests.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { scanFile } from "./harness/logs.ts";
import { OrderDeskProcess } from "./harness/process.ts";
import { logPath, record } from "./harness/results.ts";
import { orderThroughSlack, requestsFor } from "./harness/slack-driver.ts";
import { type ChildStore, freshDatabase, pgliteChildStore, seededRandom } from "./harness/stores.ts";
import { APPROVALS, startWorld, type World } from "./harness/world.ts";

const SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ORDERS = Number(process.env.RELIABILITY_APPROVAL_ORDERS ?? 10);
const MIN_KILLS = Number(process.env.RELIABILITY_KILLS ?? 5);
const MAX_KILLS = MIN_KILLS * 4;
const DEADLINE_MS = 180_000;

const blocksOf = (m: FakeMessage | undefined) => JSON.stringify(m?.versions.at(-1)?.blocks ?? null);

describe.each(TEST_BACKENDS)(
  "approvals while Order Desk is killed with SIGKILL at random moments, on %s",
  (backend) => {
    let world: World | undefined;
    let store: ChildStore | undefined;
    let app: OrderDeskProcess | undefined;
    afterAll(async () => {
      await app?.close();
      await world?.close();
      await store?.cleanup();
    });

    it(
      "places every approved order once and never a rejected one",
      async () => {
        const t0 = Date.now();
        const random = seededRandom(SEED + 7);
        world = await startWorld({ speed: 150, seed: `crash-approvals-${backend}-${SEED}` });
        store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
        const logFile = logPath(`crash-approvals-${backend}`);
        app = new OrderDeskProcess({ env: world.env(store.env), logFile, url: world.appUrl });
        const running = app;
        await running.start();
        const fake = world.fake;
        const requests: SlackRequests = requestsFor(world);
        const deadline = Date.now() + DEADLINE_MS;

        // The orders, each waiting for approval, before any kill.
        const tickets = Array.from({ length: ORDERS }, (_, i) => `APV-${101 + i}`);
        for (const ticket of tickets) {
          const outcome = await orderThroughSlack(
            fake,
            requests,
            { ticket, channel: APPROVALS.channel },
            { deadline },
          );
          expect(outcome.accepted, `${ticket}: ${outcome.problems.join(" | ")}`).toBe(true);
        }
        const dmFor = (ticket: string) =>
          fake
            .dm(APPROVALS.approver)
            .find((m) => m.threadTs === undefined && blocksOf(m).includes(`*${ticket}*`));
        const dms = await fake.waitFor(
          () => {
            const found = tickets.map(dmFor);
            return found.every(Boolean) ? (found as FakeMessage[]) : undefined;
          },
          { timeoutMs: 30_000, what: "the approver's DM for every order" },
        );
        const orderIds = dms.map((dm) => {
          const blocks = (dm.versions.at(-1)?.blocks ?? []) as {
            elements?: { action_id?: string; value?: string }[];
          }[];
          const button = blocks
            .flatMap((b) => b.elements ?? [])
            .find((e) => e.action_id === ACTION.approveOrder);
          if (!button?.value) throw new Error("an approval DM without its Approve button");
          return button.value;
        });

        let deciding = true;
        const killer = (async () => {
          // Capped: on a starved machine a restart takes seconds, and kills every two seconds for ever would keep
          // any job from finishing (a run at load 15 killed 73 times and an approved order's DM never showed).
          while ((deciding && running.kills < MAX_KILLS) || running.kills < MIN_KILLS) {
            await sleep(500 + random() * 2_000);
            await running.kill();
            await sleep(random() * 400);
            await running.start();
          }
        })();

        const ada = new SlackUser({ fake, requests, userId: APPROVALS.approver, timeoutMs: 3_000 });
        let clicks = 0;
        const decided = (i: number, words: string) => blocksOf(dmFor(tickets[i]!)).includes(words);
        let unanswered = 0;
        const approve = async (i: number) => {
          while (!decided(i, "Approved by")) {
            if (Date.now() > deadline) throw new Error(`${tickets[i]} never showed its approval`);
            // The click as Slack sends it, again and again until the DM shows the decision (a replay included).
            clicks++;
            await requests
              .blockActions({
                userId: APPROVALS.approver,
                triggerId: fake.issueTriggerId(APPROVALS.approver),
                responseUrl: fake.responseUrl(),
                message: { channelId: dms[i]!.channel, message: { ts: dms[i]!.ts, text: "" } },
                actions: [
                  {
                    type: "button",
                    action_id: ACTION.approveOrder,
                    block_id: BLOCK.approvalActions,
                    value: orderIds[i]!,
                  },
                ],
              })
              .catch(() => undefined);
            await sleep(1_500 + random() * 1_000);
            if (!decided(i, "Approved by")) unanswered++;
          }
        };
        const reject = async (i: number) => {
          while (!decided(i, "Rejected by")) {
            if (Date.now() > deadline) throw new Error(`${tickets[i]} never showed its rejection`);
            clicks++;
            try {
              const dm = dms[i]!;
              if (!blocksOf(fake.message(dm.channel, dm.ts)).includes("reject_order")) {
                await sleep(500);
                continue;
              }
              const click = await ada.clickInMessage({
                channel: dm.channel,
                ts: dm.ts,
                actionId: ACTION.rejectOrder,
              });
              const modal = await ada.openedModal(click.triggerId);
              await ada.submit(modal.id, { [BLOCK.rejectReason]: "Not in this quarter's budget" });
            } catch {
              // Down, or the form did not open in time: like a person, try again.
            }
            await sleep(1_000 + random() * 1_000);
          }
        };
        // Spread over ~15 s, so that kills land before, between and after clicks and their effects.
        const decide = async (i: number) => {
          await sleep(random() * 15_000);
          await (i % 2 === 0 ? approve(i) : reject(i));
        };
        await Promise.all(tickets.map((_, i) => decide(i))).finally(() => {
          deciding = false;
        });
        await killer;

        const approved = tickets.filter((_, i) => i % 2 === 0);
        const rejected = tickets.filter((_, i) => i % 2 === 1);
        const atSupplier = async () =>
          (await world!.sandbox.orders()).filter((o) => tickets.includes(o.customerReference ?? ""));
        while (Date.now() < deadline) {
          const held = await atSupplier();
          if (approved.every((t) => held.some((o) => o.customerReference === t))) break;
          await sleep(500);
        }
        // Time for a doubled or a wrongly placed order to show up.
        await sleep(3_000);
        const held = await atSupplier();
        const count = (t: string) => held.filter((o) => o.customerReference === t).length;
        const exitCode = await running.stop();
        const leaks = scanFile(logFile, world.secrets());
        const figures = {
          ordersSubmitted: approved.length,
          ordersPlaced: approved.filter((t) => count(t) >= 1).length,
          ordersDoubled: held.length - new Set(held.map((o) => o.customerReference)).size,
          ordersLost: approved.filter((t) => count(t) === 0).length,
          // A rejected order at the supplier counts as a leak: it passed the approval it failed.
          leaks: rejected.filter((t) => count(t) > 0).length + leaks.length,
          crashes: running.unexpectedExits.length + (exitCode === 0 ? 0 : 1),
          kills: running.kills,
        };
        record(
          {
            scenario: `approvals crash/restart (${backend})`,
            ...figures,
            durationMs: Date.now() - t0,
            notes: [
              `${ORDERS} orders, ${clicks} clicks (${unanswered} Approve clicks without a visible answer, clicked again), ` +
                `${running.kills} SIGKILLs; seed ${SEED}`,
            ],
          },
          world.secrets(),
        );
        expect(running.kills).toBeGreaterThanOrEqual(MIN_KILLS);
        expect(approved.map(count)).toEqual(approved.map(() => 1));
        expect(rejected.map(count)).toEqual(rejected.map(() => 0));
        expect(running.unexpectedExits).toEqual([]);
        expect(exitCode).toBe(0);
        expect(leaks).toEqual([]);
      },
      DEADLINE_MS + 120_000,
    );
  },
);
