import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { createJobs, type Jobs, QUEUES } from "../../src/jobs/index.ts";
import type { Authorizer } from "../../src/orders/authorization.ts";
import type { OrderDraft } from "../../src/orders/draft.ts";
import { createBatchedIntake } from "../../src/orders/intake.ts";
import {
  type OrderOrigin,
  placeOrderJobId,
  type SubmitDeps,
  type SubmitResult,
  submitOrder,
} from "../../src/orders/submit.ts";
import type { Store } from "../../src/store/db.ts";
import { getOrderByIdempotencyKey } from "../../src/store/repositories/orders.ts";
import { openTestStore, TEST_BACKENDS } from "../helpers/db.ts";
import { acmeUsDraft } from "../helpers/drafts.ts";
import { exampleConfig } from "../helpers/slack-world.ts";

const HELPDESK = "C0HELPDESK";
const customer = createCustomer(exampleConfig());
const everyone: Authorizer = { check: async () => ({ allowed: true }), isListed: () => true };

function draft(ticket: string, overrides: Partial<OrderDraft> = {}): OrderDraft {
  return acmeUsDraft({ ticket, ...overrides });
}

function origin(key: string): OrderOrigin {
  return { source: "command", requestedBy: "U0AGENT01", idempotencyKey: key, channelId: HELPDESK };
}

function queued(result: SubmitResult) {
  if (result.status !== "queued") throw new Error(`expected queued, got ${JSON.stringify(result)}`);
  return result;
}

/** A letter-only ticket prefix per test, so tests sharing a store never share a document number sequence. */
function ticketPrefix(): string {
  return `T${randomUUID()
    .replace(/[^a-f]/g, "")
    .slice(0, 6)
    .toUpperCase()}`;
}

describe.each(TEST_BACKENDS)("the order modal's group commit on %s", (backend) => {
  let store: Store;
  let jobs: Jobs;
  /** Transactions and statements outside one that the intake started (each costs at least a round trip). */
  let exchanges = 0;
  let deps: SubmitDeps;

  beforeAll(async () => {
    store = await openTestStore(backend);
    jobs = createJobs({ store, pollIntervalMs: 60_000 });
    await jobs.start();
    // Counts what the intake asks of the store (the store itself, not a stand-in).
    const counted = new Proxy(store, {
      get(target, property, receiver) {
        if (property === "transaction") {
          return <T>(fn: Parameters<Store["transaction"]>[0]) => {
            exchanges++;
            return target.transaction(fn) as Promise<T>;
          };
        }
        if (property === "query") {
          return (...args: Parameters<Store["query"]>) => {
            exchanges++;
            return target.query(...args);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const storing = { store: counted, jobs, customer };
    deps = { ...storing, authorizer: everyone, intake: createBatchedIntake(storing) };
  });

  afterAll(async () => {
    await jobs.stop({ graceMs: 100 });
    await store.close();
  });

  it("stores submits that arrive together in a few statements, each with its own number and placement job", async () => {
    const ticket = `${ticketPrefix()}-1`;
    const before = exchanges;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        submitOrder(deps, draft(ticket), origin(`view:${randomUUID()}:${i}`)),
      ),
    );
    const orders = results.map((r) => queued(r).order);
    expect(results.every((r) => queued(r).created)).toBe(true);
    // Gapless, in the order the submits arrived.
    expect(orders.map((o) => o.externalDocumentNumber)).toEqual(
      Array.from({ length: 12 }, (_, i) => `${ticket}-${i + 1}`),
    );
    // The first submit commits alone (nothing was waiting); the others arrive during its commit.
    expect(exchanges - before).toBeLessThanOrEqual(3);
    for (const order of orders) {
      expect(order.status).toBe("queued");
      expect(order.customerReference).toBe(ticket);
      expect(order.request.externalDocumentNumber).toBe(order.externalDocumentNumber);
      const job = await jobs.getJob(QUEUES.placeOrder, placeOrderJobId(order.id));
      expect(job?.data).toEqual({ orderId: order.id });
    }
  });

  it("answers a double click racing itself into one batch with one order", async () => {
    const ticket = `${ticketPrefix()}-2`;
    const key = `view:${randomUUID()}`;
    const [first, second, other] = await Promise.all([
      submitOrder(deps, draft(ticket), origin(key)),
      submitOrder(deps, draft(ticket), origin(key)),
      submitOrder(deps, draft(ticket), origin(`view:${randomUUID()}`)),
    ]);
    expect(queued(first!).created).toBe(true);
    expect(queued(second!).created).toBe(false);
    expect(queued(second!).order.id).toBe(queued(first!).order.id);
    expect(queued(other!).order.externalDocumentNumber).toBe(`${ticket}-2`);
  });

  it("redoes a batch holding a repeated submit one at a time, without using up a number", async () => {
    const ticket = `${ticketPrefix()}-3`;
    const key = `view:${randomUUID()}`;
    const earlier = queued(await submitOrder(deps, draft(ticket), origin(key)));
    expect(earlier.order.externalDocumentNumber).toBe(`${ticket}-1`);
    const [again, a, b] = await Promise.all([
      submitOrder(deps, draft(ticket), origin(key)),
      submitOrder(deps, draft(ticket), origin(`view:${randomUUID()}`)),
      submitOrder(deps, draft(ticket), origin(`view:${randomUUID()}`)),
    ]);
    expect(queued(again!)).toMatchObject({ created: false, order: { id: earlier.order.id } });
    expect([queued(a!).order.externalDocumentNumber, queued(b!).order.externalDocumentNumber]).toEqual([
      `${ticket}-2`,
      `${ticket}-3`,
    ]);
  });

  it("stores a typed document number beside a batch, and refuses one already taken on its field", async () => {
    const ticket = `${ticketPrefix()}-4`;
    const typed = `${ticket}-TYPED`;
    const [mine, generated, taken] = await Promise.all([
      submitOrder(deps, draft(ticket, { externalDocumentNumber: typed }), origin(`view:${randomUUID()}`)),
      submitOrder(deps, draft(ticket), origin(`view:${randomUUID()}`)),
      submitOrder(deps, draft(ticket, { externalDocumentNumber: typed }), origin(`view:${randomUUID()}`)),
    ]);
    expect(queued(mine!).order.externalDocumentNumber).toBe(typed);
    expect(queued(generated!).order.externalDocumentNumber).toBe(`${ticket}-1`);
    expect(taken).toMatchObject({
      status: "invalid",
      errors: { externalDocumentNumber: [expect.stringContaining("already used")] },
    });
  });

  it("keeps the tickets' sequences apart within one batch", async () => {
    const [t1, t2] = [`${ticketPrefix()}-5`, `${ticketPrefix()}-6`];
    const results = await Promise.all(
      [t1, t2, t1, t2, t1].map((t) => submitOrder(deps, draft(t), origin(`view:${randomUUID()}`))),
    );
    expect(results.map((r) => queued(r).order.externalDocumentNumber)).toEqual([
      `${t1}-1`,
      `${t2}-1`,
      `${t1}-2`,
      `${t2}-2`,
      `${t1}-3`,
    ]);
  });

  it("skips a generated number an agent once typed by hand, alone and in a batch", async () => {
    const ticket = `${ticketPrefix()}-7`;
    for (const n of [1, 3]) {
      const typed = draft(ticket, { externalDocumentNumber: `${ticket}-${n}` });
      queued(await submitOrder(deps, typed, origin(`view:${randomUUID()}`)));
    }
    const alone = queued(await submitOrder(deps, draft(ticket), origin(`view:${randomUUID()}`)));
    expect(alone.order.externalDocumentNumber).toBe(`${ticket}-2`);
    const keys = [`view:${randomUUID()}`, `view:${randomUUID()}`];
    const batch = await Promise.all(keys.map((k) => submitOrder(deps, draft(ticket), origin(k))));
    expect(batch.map((r) => queued(r).order.externalDocumentNumber).sort()).toEqual([
      `${ticket}-4`,
      `${ticket}-5`,
    ]);
    for (const k of keys) expect(await getOrderByIdempotencyKey(store, k)).not.toBeNull();
  });
});
