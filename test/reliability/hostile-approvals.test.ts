/**
 * Hostile `block_actions` on approvals, over Order Desk's real HTTP receiver: fast-check sends Approve and Reject
 * clicks with forged order ids (random, huge, `__proto__`, SQL), other profiles' orders, the requester's own
 * orders, non-approvers, and replays; and reject-modal submissions with forged `private_metadata`. Nothing may be
 * decided or placed by any of them, nothing may crash or answer 5xx; the real approver's replayed and concurrent
 * clicks then place the order exactly once. An approver who resubmitted a colleague's rejected order (Fix and
 * resubmit) is not asked and cannot approve it however often they click.
 */
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Order } from "../../src/orders/model/order.ts";
import { ACTION, BLOCK, CALLBACK } from "../../src/slack/blocks/ids.ts";
import { getOrder, getOrderByIdempotencyKey } from "../../src/store/repositories/orders.ts";
import { SlackUser } from "../../tools/fake-slack/index.ts";
import type { SlackRequests } from "../../tools/slack-requests.ts";
import { FUZZ_SEED, fuzzBudget } from "./harness/fuzz-budget.ts";
import { type InProcessDesk, startInProcessDesk, watchForCrashes } from "./harness/in-process.ts";
import { scanFile } from "./harness/logs.ts";
import { record } from "./harness/results.ts";
import { orderForm, slackRequests } from "./harness/slack-driver.ts";
import { AGENT, APPROVALS, APPROVALS_B, OUTSIDER, startWorld, type World } from "./harness/world.ts";

const RUNS = Math.min(Number(process.env.RELIABILITY_FUZZ_RUNS ?? 2_000), 2_000);
const SEED = FUZZ_SEED;
const FUZZ = fuzzBudget(RUNS, 120, 90_000);

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

describe("approvals under hostile clicks", () => {
  let world: World;
  let app: InProcessDesk;
  let requests: SlackRequests;
  const orders: Record<"a1" | "a2" | "b1", Order> = {} as never;
  const figures = { inputsTried: 0, crashes: 0, http5xx: 0, leaks: 0 };
  const notes: string[] = [];
  const t0 = Date.now();

  beforeAll(async () => {
    world = await startWorld({ speed: 50, seed: "hostile-approvals" });
    app = await startInProcessDesk(world, "hostile-approvals");
    requests = slackRequests(world.fake, app.desk.url, world.signingSecret);
    const alice = new SlackUser({ fake: world.fake, requests, userId: AGENT, timeoutMs: 5_000 });
    const place = async (channel: string, ticket: string) => {
      const { triggerId } = await alice.runCommand({ channel, command: "/order", text: ticket });
      const view = await alice.openedModal(triggerId);
      const submitted = await alice.submit(view.id, orderForm(ticket));
      expect(submitted.outcome.outcome).toBe("closed");
      return until(`${ticket} stored`, 5_000, async () => {
        const order = await getOrderByIdempotencyKey(app.desk.store, `view:${view.id}`);
        return order?.status === "awaiting_approval" ? order : undefined;
      });
    };
    orders.a1 = await place(APPROVALS.channel, "APR-1");
    orders.a2 = await place(APPROVALS.channel, "APR-2");
    orders.b1 = await place(APPROVALS_B.channel, "APR-3");
  });

  afterAll(async () => {
    await app?.close();
    await world?.close();
    const leaks = app ? scanFile(app.logFile, world.secrets()) : [];
    figures.leaks += leaks.length;
    notes.push(`seed ${SEED}`, ...leaks.map((l) => `${l.secret} in the log, line ${l.line}`));
    record(
      { scenario: "hostile approval clicks", ...figures, durationMs: Date.now() - t0, notes },
      world?.secrets() ?? [],
    );
  });

  const click = (userId: string, actionId: string, value: string) =>
    requests.blockActions({
      userId,
      triggerId: world.fake.issueTriggerId(userId),
      responseUrl: world.fake.responseUrl(),
      message: { channelId: `D${userId.slice(1)}`, message: { ts: "1700000000.000100", text: "" } },
      actions: [{ type: "button", action_id: actionId, block_id: BLOCK.approvalActions, value }],
    });

  const statuses = async () =>
    Object.fromEntries(
      await Promise.all(
        Object.entries(orders).map(async ([name, o]) => [
          name,
          (await app.desk.store.query("SELECT status FROM orders WHERE id = $1", [o.id])).rows[0]?.status,
        ]),
      ),
    );

  it(
    `decides nothing for up to ${RUNS} forged, foreign, self and replayed clicks, and never fails`,
    async () => {
      const crashes = watchForCrashes();
      const triedBefore = figures.inputsTried;
      /** Cases the property ran (the forged submissions after it count in inputsTried too). */
      let fuzzed: number | undefined;
      const ids = [orders.a1.id, orders.a2.id, orders.b1.id];
      const value = fc.oneof(
        fc.constantFrom(
          ...ids,
          "",
          " ",
          "__proto__",
          "constructor",
          "' OR 1=1 --",
          "x".repeat(5_000),
          "\u0000",
        ),
        fc.uuid(),
        fc.string({ unit: "binary", maxLength: 60 }),
      );
      const clicker = fc.constantFrom(OUTSIDER, AGENT, APPROVALS.approver, APPROVALS_B.approver, "U0NOBODY");
      // The only clicks that may decide: an approver of the order's own profile, on that order.
      const legitimate = (user: string, id: string) =>
        (user === APPROVALS.approver && (id === orders.a1.id || id === orders.a2.id)) ||
        (user === APPROVALS_B.approver && id === orders.b1.id);
      try {
        await FUZZ.assert(
          fc.asyncProperty(
            clicker,
            fc.constantFrom(ACTION.approveOrder, ACTION.rejectOrder),
            value,
            async (user, actionId, id) => {
              fc.pre(!legitimate(user, id));
              figures.inputsTried++;
              const res = await click(user, actionId, id);
              if (res.status >= 500) figures.http5xx++;
              expect(res.status).toBeLessThan(500);
            },
          ),
        );
        fuzzed = figures.inputsTried - triedBefore;
        // Reject modals forged for an order of another profile, or with a made-up id, submitted by an approver.
        for (const [user, id] of [
          [APPROVALS_B.approver, orders.a1.id],
          [APPROVALS.approver, orders.b1.id],
          [AGENT, orders.a2.id],
          [APPROVALS.approver, "__proto__"],
        ] as const) {
          figures.inputsTried++;
          const res = await requests.viewSubmission({
            userId: user,
            triggerId: world.fake.issueTriggerId(user),
            view: {
              id: `VFORGED${figures.inputsTried}`,
              type: "modal",
              callback_id: CALLBACK.rejectReason,
              private_metadata: id,
              state: {
                values: {
                  [BLOCK.rejectReason]: { [ACTION.value]: { type: "plain_text_input", value: "no" } },
                },
              },
              hash: "h",
            },
          });
          expect(res.status).toBeLessThan(500);
        }
        await sleep(500); // acked clicks finish their work after the answer
        expect(await statuses()).toEqual({
          a1: "awaiting_approval",
          a2: "awaiting_approval",
          b1: "awaiting_approval",
        });
        // No reject form was opened for anyone who may not decide.
        expect(
          world.fake
            .views()
            .filter(
              (v) =>
                v.definition.callback_id === CALLBACK.rejectReason &&
                v.userId !== APPROVALS.approver &&
                v.userId !== APPROVALS_B.approver,
            ),
        ).toEqual([]);
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(
          FUZZ.note("clicks", fuzzed ?? figures.inputsTried - triedBefore),
          ...crashes.errors.slice(0, 5),
        );
      }
      expect(crashes.count).toBe(0);
      expect(figures.http5xx).toBe(0);
    },
    FUZZ.timeoutMs,
  );

  it("places an order once when its approver clicks Approve many times at once and replays it later", async () => {
    const clicks = Array.from({ length: 12 }, () =>
      click(APPROVALS.approver, ACTION.approveOrder, orders.a1.id),
    );
    for (const res of await Promise.all(clicks)) expect(res.status).toBe(200);
    await until("APR-1 placed", 20_000, async () => {
      const held = (await world.sandbox.orders()).filter((o) => o.customerReference === "APR-1");
      return held.length > 0 ? held : undefined;
    });
    for (let i = 0; i < 5; i++) await click(APPROVALS.approver, ACTION.approveOrder, orders.a1.id);
    await sleep(1_000);
    const held = (await world.sandbox.orders()).filter((o) =>
      ["APR-1", "APR-2", "APR-3"].includes(o.customerReference ?? ""),
    );
    expect(held.map((o) => o.customerReference)).toEqual(["APR-1"]);
    const after = await statuses();
    expect(after.a2).toBe("awaiting_approval");
    expect(after.b1).toBe("awaiting_approval");
  });

  it("never lets an approver who resubmitted an order approve it, however they click", async () => {
    const alice = new SlackUser({ fake: world.fake, requests, userId: AGENT, timeoutMs: 5_000 });
    const ada = new SlackUser({ fake: world.fake, requests, userId: APPROVALS.approver, timeoutMs: 5_000 });
    const { triggerId } = await alice.runCommand({
      channel: APPROVALS.channel,
      command: "/order",
      text: "APR-9",
    });
    const view = await alice.openedModal(triggerId);
    expect((await alice.submit(view.id, orderForm("APR-9"))).outcome.outcome).toBe("closed");
    const order = await until("APR-9 waiting", 5_000, async () => {
      const o = await getOrderByIdempotencyKey(app.desk.store, `view:${view.id}`);
      return o?.status === "awaiting_approval" && o.slackMessageTs ? o : undefined;
    });
    const reject = await click(APPROVALS.approver, ACTION.rejectOrder, order.id);
    expect(reject.status).toBe(200);
    const modal = await until("the reason's modal", 5_000, async () =>
      world.fake
        .views({ userId: APPROVALS.approver })
        .find(
          (v) =>
            v.definition.callback_id === CALLBACK.rejectReason && v.definition.private_metadata === order.id,
        ),
    );
    expect((await ada.submit(modal.id, { [BLOCK.rejectReason]: "Not this one" })).outcome.outcome).toBe(
      "closed",
    );
    await until("APR-9 rejected and offering Fix and resubmit", 10_000, async () => {
      const m = world.fake.message(APPROVALS.channel, order.slackMessageTs ?? "");
      return JSON.stringify(m?.versions.at(-1)?.blocks ?? []).includes("fix_and_resubmit") ? m : undefined;
    });
    const fix = await ada.clickInMessage({
      channel: APPROVALS.channel,
      ts: order.slackMessageTs!,
      actionId: "fix_and_resubmit",
    });
    const form = await ada.openedModal(fix.triggerId);
    const {
      line_0_item: _item,
      line_0_quantity: _qty,
      country: _country,
      delivery_at: _at,
      ...personal
    } = orderForm("APR-9");
    expect((await ada.submit(form.id, personal)).outcome.outcome).toBe("closed");
    await until("APR-9 waiting again", 10_000, async () => {
      const o = await getOrder(app.desk.store, order.id);
      return o?.status === "awaiting_approval" && o.resubmittedBy === APPROVALS.approver ? o : undefined;
    });
    const dmsBefore = world.fake.dm(APPROVALS.approver).length;
    const clicks = [
      ...Array.from({ length: 10 }, () => click(APPROVALS.approver, ACTION.approveOrder, order.id)),
      ...Array.from({ length: 5 }, () => click(AGENT, ACTION.approveOrder, order.id)),
      click(APPROVALS.approver, ACTION.rejectOrder, order.id),
    ];
    for (const res of await Promise.all(clicks)) expect(res.status).toBe(200);
    await sleep(1_000);
    expect((await getOrder(app.desk.store, order.id))?.status).toBe("awaiting_approval");
    expect((await world.sandbox.orders()).filter((o) => o.customerReference === "APR-9")).toEqual([]);
    // Not asked for the new round: nobody but the requester and Ada approve this profile, so nobody is.
    expect(
      world.fake
        .dm(APPROVALS.approver)
        .slice(dmsBefore)
        .filter((m) => JSON.stringify(m.versions[0]?.blocks ?? []).includes("approve_order")),
    ).toEqual([]);
  });
});
