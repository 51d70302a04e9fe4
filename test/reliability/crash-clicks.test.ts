/**
 * A click acked is a click decided (issue #35): `order-desk start` in a child process is SIGKILLed right after the
 * ack of an Approve, a Reject (the reason modal's submit), a Retry now and a Retry posting, one after the other,
 * and restarted; nobody clicks again. Afterwards each was decided exactly once: the approved and the retried
 * orders are at the supplier once, the rejected one never, one decision or resolution recorded each, every DM and
 * admin alert rewritten once with it, every update once in its thread. On the embedded store and, with
 * DATABASE_URL, on PostgreSQL.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { ACTION, BLOCK } from "../../src/slack/blocks/ids.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { type FakeMessage, SlackUser } from "../../tools/fake-slack/index.ts";
import type { SlackRequests } from "../../tools/slack-requests.ts";
import { TEST_BACKENDS } from "../helpers/db.ts";
import { scanFile } from "./harness/logs.ts";
import { OrderDeskProcess } from "./harness/process.ts";
import { logPath, record } from "./harness/results.ts";
import { orderThroughSlack, requestsFor } from "./harness/slack-driver.ts";
import { type ChildStore, freshDatabase, pgliteChildStore } from "./harness/stores.ts";
import { ADMIN_CHANNEL, APPROVALS, CHANNELS, startWorld, type World } from "./harness/world.ts";

const ADMIN = "U0RELADMIN";
const DEADLINE_MS = 150_000;

const blocksOf = (m: FakeMessage | undefined) => JSON.stringify(m?.versions.at(-1)?.blocks ?? null);
const textOf = (m: FakeMessage | undefined) => `${m?.versions.at(-1)?.text ?? ""} ${blocksOf(m)}`;

function buttonValue(message: FakeMessage, actionId: string): string {
  const blocks = (message.versions.at(-1)?.blocks ?? []) as {
    elements?: { action_id?: string; value?: string }[];
  }[];
  const button = blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === actionId);
  if (!button?.value) throw new Error(`no ${actionId} button`);
  return button.value;
}

async function openChildStore(store: ChildStore): Promise<Store> {
  return store.env.DATABASE_URL
    ? openStore({ databaseUrl: store.env.DATABASE_URL, migrate: false, poolSize: 2 })
    : openStore({ dataDir: store.env.ORDER_DESK_DATA_DIR ?? "", migrate: false });
}

describe.each(TEST_BACKENDS)("a click killed right after its ack, on %s", (backend) => {
  let world: World | undefined;
  let store: ChildStore | undefined;
  let app: OrderDeskProcess | undefined;
  afterAll(async () => {
    await app?.close();
    await world?.close();
    await store?.cleanup();
  });

  it(
    "is decided exactly once after the restart: Approve, Reject, Retry now, Retry posting",
    async () => {
      const t0 = Date.now();
      world = await startWorld({ speed: 150, seed: `crash-clicks-${backend}` });
      store = backend === "pglite" ? await pgliteChildStore() : await freshDatabase();
      const logFile = logPath(`crash-clicks-${backend}`);
      app = new OrderDeskProcess({ env: world.env(store.env), logFile, url: world.appUrl });
      const running = app;
      await running.start();
      const w = world;
      const fake = w.fake;
      const requests: SlackRequests = requestsFor(w);
      const deadline = Date.now() + DEADLINE_MS;
      const notes: string[] = [];
      const waitFor = <T>(what: string, probe: () => T | undefined, timeoutMs = 60_000) =>
        fake.waitFor(probe, { timeoutMs, what });
      const order = async (ticket: string, channel: string) => {
        const outcome = await orderThroughSlack(fake, requests, { ticket, channel }, { deadline });
        expect(outcome.accepted, `${ticket}: ${outcome.problems.join(" | ")}`).toBe(true);
      };
      /** The click, as Slack sends it; SIGKILL the moment its ack is back, then start again. */
      const killAfterAck = async (what: string, ack: () => Promise<{ status: number }>) => {
        const answer = await ack();
        await running.kill();
        expect(answer.status, `${what}: the ack`).toBe(200);
        notes.push(`${what}: acked, SIGKILL at once`);
        await running.start();
      };
      const atSupplier = async (ticket: string) =>
        (await w.sandbox.orders()).filter((o) => o.customerReference === ticket).length;
      const click = (userId: string, message: FakeMessage, actionId: string, blockId: string) =>
        requests.blockActions({
          userId,
          triggerId: fake.issueTriggerId(userId),
          responseUrl: fake.responseUrl(),
          message: { channelId: message.channel, message: { ts: message.ts, text: "" } },
          actions: [
            { type: "button", action_id: actionId, block_id: blockId, value: buttonValue(message, actionId) },
          ],
        });

      // Approve and Reject, from the approver's DMs.
      await order("CLK-1", APPROVALS.channel);
      await order("CLK-2", APPROVALS.channel);
      const dmFor = (ticket: string) =>
        fake
          .dm(APPROVALS.approver)
          .find((m) => m.threadTs === undefined && blocksOf(m).includes(`*${ticket}*`));
      const approveDm = await waitFor("CLK-1's DM", () => dmFor("CLK-1"));
      const rejectDm = await waitFor("CLK-2's DM", () => dmFor("CLK-2"));
      await killAfterAck("Approve", () =>
        click(APPROVALS.approver, approveDm, ACTION.approveOrder, BLOCK.approvalActions),
      );
      const ada = new SlackUser({ fake, requests, userId: APPROVALS.approver, timeoutMs: 3_000 });
      const rejectClick = await ada.clickInMessage({
        channel: rejectDm.channel,
        ts: rejectDm.ts,
        actionId: ACTION.rejectOrder,
      });
      const modal = await ada.openedModal(rejectClick.triggerId);
      await killAfterAck("Reject", async () => {
        const submitted = await ada.submit(modal.id, { [BLOCK.rejectReason]: "Not this quarter" });
        return { status: submitted.outcome.outcome === "closed" ? 200 : 500 };
      });

      // Retry now: the supplier refuses our key for this order, which fails for good; fixed, an admin retries.
      w.gateway.refuseKeysFor("CLK-3");
      await order("CLK-3", CHANNELS[0] ?? "");
      const failedAlert = await waitFor("CLK-3's failed-order alert", () =>
        fake
          .topLevel(ADMIN_CHANNEL)
          .find((m) => textOf(m).includes("CLK-3") && blocksOf(m).includes(ACTION.retryOrder)),
      );
      w.gateway.accept("CLK-3");
      const retryBlock = `attention_actions:${buttonValue(failedAlert, ACTION.retryOrder)}`;
      await killAfterAck("Retry now", () => click(ADMIN, failedAlert, ACTION.retryOrder, retryBlock));

      // Retry posting: the order's channel is archived while its updates arrive; back, an admin retries.
      const channel = CHANNELS[1] ?? "";
      await order("CLK-4", channel);
      const message = await waitFor("CLK-4's message", () =>
        fake.topLevel(channel).find((m) => textOf(m).includes("CLK-4") && m.versions.at(-1)?.text !== ""),
      );
      fake.setArchived(channel, true);
      const unpostedAlert = await waitFor("CLK-4's unposted-updates alert", () =>
        fake
          .topLevel(ADMIN_CHANNEL)
          .find((m) => textOf(m).includes("CLK-4") && blocksOf(m).includes(ACTION.retryPosting)),
      );
      fake.setArchived(channel, false);
      const postingBlock = `attention_actions:${buttonValue(unpostedAlert, ACTION.retryPosting)}`;
      await killAfterAck("Retry posting", () =>
        click(ADMIN, unpostedAlert, ACTION.retryPosting, postingBlock),
      );

      // Settled: what each click was to do is done, by the restarted process, without a second click.
      while (
        Date.now() < deadline &&
        ((await atSupplier("CLK-1")) === 0 || (await atSupplier("CLK-3")) === 0)
      ) {
        await sleep(500);
      }
      const shows = (m: FakeMessage, words: string) => () =>
        textOf(fake.message(m.channel, m.ts)).includes(words) ? true : undefined;
      await waitFor("CLK-1's DM approved", shows(approveDm, "Approved by"));
      await waitFor("CLK-2's DM rejected", shows(rejectDm, "Rejected by"));
      await waitFor("CLK-3's alert rewritten", shows(failedAlert, "Retried by"));
      await waitFor("CLK-4's alert rewritten", () =>
        /Posting retried by|Closed/.test(textOf(fake.message(ADMIN_CHANNEL, unpostedAlert.ts)))
          ? true
          : undefined,
      );
      // Every update of CLK-4 in its thread (the sandbox goes on fulfilling it meanwhile).
      for (;;) {
        const [planned] = (await w.sandbox.orders()).filter((o) => o.customerReference === "CLK-4");
        const replies = fake.thread(message.channel, message.ts).filter((m) => m.ts !== message.ts).length;
        if (planned && planned.eventsEmitted === planned.eventsPlanned && replies >= planned.eventsPlanned)
          break;
        if (Date.now() > deadline) throw new Error(`CLK-4's updates not all in its thread (${replies})`);
        await sleep(500);
      }
      // Time for a doubled placement or rewrite to show up.
      await sleep(3_000);
      const exitCode = await running.stop();

      const db = await openChildStore(store);
      try {
        const orders = await db.query(
          `SELECT customer_reference AS ticket, status, approval_decided_by AS by FROM orders
           WHERE customer_reference IN ('CLK-1', 'CLK-2')`,
        );
        const byTicket = Object.fromEntries(orders.rows.map((r) => [r.ticket, r]));
        expect(byTicket["CLK-1"]?.by).toBe(APPROVALS.approver);
        expect(byTicket["CLK-2"]).toMatchObject({ status: "rejected_by_approver", by: APPROVALS.approver });
        const items = await db.query(
          `SELECT a.kind, a.resolution, a.resolved_by, o.customer_reference AS ticket, o.status, a.opened_at
           FROM attention_items a LEFT JOIN orders o ON o.id = a.subject
           WHERE a.kind IN ('failed_order', 'unposted_updates')`,
        );
        notes.push(`attention items: ${JSON.stringify(items.rows)}`);
        expect(
          items.rows.filter((r) => r.kind === "failed_order"),
          JSON.stringify(items.rows),
        ).toMatchObject([{ kind: "failed_order", resolution: "retried", resolved_by: ADMIN }]);
        const posting = items.rows.filter((r) => r.kind === "unposted_updates");
        expect(posting).toHaveLength(1);
        expect(["reposted", "obsolete"]).toContain(posting[0]?.resolution);
        const unposted = await db.query(
          `SELECT count(*)::int AS n FROM supplier_events e JOIN orders o ON o.id = e.order_id
           WHERE o.customer_reference = 'CLK-4' AND e.posted_at IS NULL`,
        );
        expect(unposted.rows[0]?.n).toBe(0);
      } finally {
        await db.close();
      }
      // What a person sees change: the distinct contents the message was rewritten to with the outcome. A kill
      // between Slack's update and its record makes the restarted job send the same update again, which changes
      // nothing anyone sees; a second, different rewrite (another decision, another time) would count.
      const rewrites = (m: FakeMessage, words: string) =>
        new Set(
          fake
            .calls("chat.update")
            .filter(
              (c) =>
                c.args.channel === m.channel && c.args.ts === m.ts && JSON.stringify(c.args).includes(words),
            )
            .map((c) => JSON.stringify([c.args.text, c.args.blocks, c.args.attachments])),
        ).size;
      const counts = {
        approved: await atSupplier("CLK-1"),
        rejected: await atSupplier("CLK-2"),
        retried: await atSupplier("CLK-3"),
        approveDm: rewrites(approveDm, "Approved by"),
        rejectDm: rewrites(rejectDm, "Rejected by"),
        retryAlert: rewrites(failedAlert, "Retried by"),
        postingAlert: rewrites(unpostedAlert, "by <@"),
      };
      notes.push(`placed/rewritten: ${JSON.stringify(counts)}`);
      const leaks = scanFile(logFile, w.secrets());
      record(
        {
          scenario: `clicks killed after their ack (${backend})`,
          ordersSubmitted: 2,
          ordersPlaced: (counts.approved >= 1 ? 1 : 0) + (counts.retried >= 1 ? 1 : 0),
          ordersDoubled: Math.max(0, counts.approved - 1) + Math.max(0, counts.retried - 1),
          ordersLost: (counts.approved === 0 ? 1 : 0) + (counts.retried === 0 ? 1 : 0),
          leaks: counts.rejected + leaks.length,
          crashes: running.unexpectedExits.length + (exitCode === 0 ? 0 : 1),
          kills: running.kills,
          durationMs: Date.now() - t0,
          notes,
        },
        w.secrets(),
      );
      expect(counts).toEqual({
        approved: 1,
        rejected: 0,
        retried: 1,
        approveDm: 1,
        rejectDm: 1,
        retryAlert: 1,
        postingAlert: 1,
      });
      expect(running.kills).toBe(4);
      expect(running.unexpectedExits).toEqual([]);
      expect(exitCode).toBe(0);
      expect(leaks).toEqual([]);
    },
    DEADLINE_MS + 120_000,
  );
});
