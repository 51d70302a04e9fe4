/**
 * The decision in the store, on both stores: the first decision wins and enqueues the placement exactly once,
 * whoever clicks at the same moment (approvers racing, double clicks, an approval racing a rejection or the
 * expiry); a failure between the decision and the enqueue (the process dying there) leaves the order waiting,
 * never decided without its job. The requester and non-approvers change nothing.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { createJobs, type Jobs, QUEUES } from "../../src/jobs/index.ts";
import { type ApprovalDeps, decideApproval, recordDecision } from "../../src/orders/approvals/decide.ts";
import { approvalJobId, isCurrentRound } from "../../src/orders/approvals/request.ts";
import type { Membership } from "../../src/orders/authorization.ts";
import type { Order } from "../../src/orders/model/order.ts";
import { submitOrder } from "../../src/orders/submit.ts";
import type { Store } from "../../src/store/db.ts";
import { getOrder } from "../../src/store/repositories/orders.ts";
import { openTestStore, TEST_BACKENDS } from "../helpers/db.ts";
import { acmeUsDraft } from "../helpers/drafts.ts";
import { exampleConfig } from "../helpers/slack-world.ts";

const REQUESTER = "U0AGENT01";
const APPROVERS = ["U0MANAGER", "U0BOSS01", "U0LEAD01"];

const config = exampleConfig();
// Acme US: every order needs approval by the three approvers (and the requester, who may still not approve).
config.profiles[1]!.approval = {
  approvers: [REQUESTER, ...APPROVERS.slice(0, 2)],
  approverGroups: ["S0LEADS"],
  when: [{ always: true }],
  remindAfterHours: 24,
  expireAfterDays: 7,
};
const customer = createCustomer(config);

/** The authorizer's port, answering from a fixed group list (the Slack lookup is tested elsewhere). */
const groups: Record<string, string[]> = { S0LEADS: ["U0LEAD01"] };
const membership: Pick<Membership, "isAmong" | "expand"> = {
  async isAmong(people, userId) {
    if (people.users.includes(userId)) return { member: true };
    if (people.groups.some((g) => groups[g]?.includes(userId))) return { member: true };
    return { member: false, reason: "not_listed" };
  },
  async expand(people) {
    return {
      users: [...new Set([...people.users, ...people.groups.flatMap((g) => groups[g] ?? [])])],
      failedGroups: [],
    };
  },
};

describe.each(TEST_BACKENDS)("approval decisions on %s", (backend) => {
  let store: Store;
  let jobs: Jobs;
  let deps: ApprovalDeps;

  beforeAll(async () => {
    store = await openTestStore(backend);
    // No workers: the test reads the jobs the decisions enqueued.
    jobs = createJobs({ store, pollIntervalMs: 60_000 });
    await jobs.start();
    deps = { store, jobs, customer, membership };
  });

  afterAll(async () => {
    await jobs.stop({ graceMs: 100 });
    await store.close();
  });

  async function waitingOrder(): Promise<Order> {
    const result = await submitOrder(
      { store, jobs, customer, authorizer: { check: async () => ({ allowed: true }), isListed: () => true } },
      acmeUsDraft({ ticket: `APR-${Math.floor(Math.random() * 1e6) + 1}` }),
      {
        source: "command",
        requestedBy: REQUESTER,
        idempotencyKey: `view:${randomUUID()}`,
        channelId: "C0HELPDESK",
      },
    );
    if (result.status !== "queued") throw new Error(JSON.stringify(result));
    expect(result.order.status).toBe("awaiting_approval");
    return result.order;
  }

  async function jobCount(queue: string, orderId: string): Promise<number> {
    const { rows } = await store.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${jobs.schema}.job WHERE name = $1 AND data->>'orderId' = $2`,
      [queue, orderId],
    );
    return Number(rows[0]?.n);
  }

  it("stores a matching order as waiting, with its request, reminder and expiry jobs and no placement", async () => {
    const order = await waitingOrder();
    expect(await jobCount(QUEUES.placeOrder, order.id)).toBe(0);
    expect(await jobCount(QUEUES.approvalRequest, order.id)).toBe(1);
    expect(await jobCount(QUEUES.approvalReminder, order.id)).toBe(1);
    expect(await jobCount(QUEUES.approvalExpiry, order.id)).toBe(1);
  });

  it("gives each approval job its round; one enqueued without it is told by its id, one of another round does nothing", async () => {
    const order = await waitingOrder();
    for (const queue of [QUEUES.approvalRequest, QUEUES.approvalReminder, QUEUES.approvalExpiry] as const) {
      const id = approvalJobId(queue, order.id);
      const job = await jobs.getJob(queue, id);
      expect(job?.data).toEqual({ orderId: order.id, round: "" });
      expect(isCurrentRound({ id, queue, data: { orderId: order.id, round: "" } }, order)).toBe(true);
      // Enqueued before jobs carried their round: the first round's id is this round's.
      expect(isCurrentRound({ id, queue, data: { orderId: order.id } }, order)).toBe(true);
      expect(isCurrentRound({ id: randomUUID(), queue, data: { orderId: order.id } }, order)).toBe(false);
      // After a resubmission, the first round's jobs are not the order's any more.
      const resubmitted = { ...order, resubmittedAt: new Date() };
      expect(isCurrentRound({ id, queue, data: { orderId: order.id, round: "" } }, resubmitted)).toBe(false);
      expect(isCurrentRound({ id, queue, data: { orderId: order.id } }, resubmitted)).toBe(false);
    }
  });

  it("enqueues the placement exactly once when approvers click at the same moment, some twice", async () => {
    const order = await waitingOrder();
    const clicks = [...APPROVERS, ...APPROVERS, APPROVERS[0]!].map((userId) =>
      decideApproval(deps, { orderId: order.id, userId, outcome: "approved" }),
    );
    const results = await Promise.all(clicks);
    const won = results.filter((r) => "decided" in r);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => "refused" in r && r.refused === "no_longer_waiting")).toHaveLength(
      clicks.length - 1,
    );
    const decided = await getOrder(store, order.id);
    expect(decided?.status).toBe("queued");
    expect(APPROVERS).toContain(decided?.approval?.decidedBy);
    expect(await jobCount(QUEUES.placeOrder, order.id)).toBe(1);
    expect(await jobCount(QUEUES.approvalDecision, order.id)).toBe(1);
  });

  it("lets one of an approval, a rejection and the expiry win; a rejected or expired order gets no placement", async () => {
    for (let round = 0; round < 3; round++) {
      const order = await waitingOrder();
      await Promise.all([
        decideApproval(deps, { orderId: order.id, userId: APPROVERS[0]!, outcome: "approved" }),
        decideApproval(deps, { orderId: order.id, userId: APPROVERS[1]!, outcome: "rejected", reason: "no" }),
        recordDecision(deps, order.id, { outcome: "expired", by: null, reason: null }),
      ]);
      const decided = await getOrder(store, order.id);
      expect(["queued", "rejected_by_approver", "approval_expired"]).toContain(decided?.status);
      expect(await jobCount(QUEUES.placeOrder, order.id)).toBe(decided?.status === "queued" ? 1 : 0);
      expect(await jobCount(QUEUES.approvalDecision, order.id)).toBe(1);
    }
  });

  it("rolls the decision back when the placement cannot be enqueued (a crash in between), so the click can be repeated", async () => {
    const order = await waitingOrder();
    const failing: ApprovalDeps = {
      ...deps,
      jobs: {
        async send(queue, data, options) {
          if (queue === QUEUES.placeOrder) throw new Error("the process died here");
          return jobs.send(queue, data, options);
        },
      },
    };
    await expect(
      decideApproval(failing, { orderId: order.id, userId: APPROVERS[0]!, outcome: "approved" }),
    ).rejects.toThrow("the process died here");
    expect((await getOrder(store, order.id))?.status).toBe("awaiting_approval");
    expect(await jobCount(QUEUES.approvalDecision, order.id)).toBe(0);

    const again = await decideApproval(deps, {
      orderId: order.id,
      userId: APPROVERS[0]!,
      outcome: "approved",
    });
    expect("decided" in again && again.decided).toBe("approved");
    expect(await jobCount(QUEUES.placeOrder, order.id)).toBe(1);
  });

  it("refuses the requester, a non-approver, a rejection without reason and an unknown order", async () => {
    const order = await waitingOrder();
    const ask = (userId: string, outcome: "approved" | "rejected", reason?: string) =>
      decideApproval(deps, { orderId: order.id, userId, outcome, reason });
    expect(await ask(REQUESTER, "approved")).toMatchObject({ refused: "own_order" });
    expect(await ask("U0OUTSIDER", "approved")).toMatchObject({ refused: "not_approver" });
    expect(await ask(APPROVERS[0]!, "rejected", "  ")).toMatchObject({ refused: "reason_required" });
    expect(
      await decideApproval(deps, { orderId: "not-an-order", userId: APPROVERS[0]!, outcome: "approved" }),
    ).toMatchObject({ refused: "not_found" });
    expect((await getOrder(store, order.id))?.status).toBe("awaiting_approval");
    expect(await jobCount(QUEUES.placeOrder, order.id)).toBe(0);
  });
});
