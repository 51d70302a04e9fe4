import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { createJobs, type Jobs, QUEUES } from "../../src/jobs/index.ts";
import type { Authorizer } from "../../src/orders/authorization.ts";
import type { OrderDraft } from "../../src/orders/draft.ts";
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

/** Document numbers in ticket, then counter order (`X-10` after `X-9`). */
function byNumber(a: string, b: string): number {
  const split = (s: string) =>
    [s.slice(0, s.lastIndexOf("-")), Number(s.slice(s.lastIndexOf("-") + 1))] as const;
  const [pa, na] = split(a);
  const [pb, nb] = split(b);
  return pa === pb ? na - nb : pa < pb ? -1 : 1;
}

/** A letter-only ticket prefix per test, so tests sharing a store never share a document number sequence. */
function ticketPrefix(): string {
  return `T${randomUUID()
    .replace(/[^a-f]/g, "")
    .slice(0, 6)
    .toUpperCase()}`;
}

/**
 * Submits that arrive at once (a burst, a double click) each take the one submit path (`storeSubmission`: one
 * transaction each): every accepted submit is stored exactly once with exactly one placement job, and the
 * document numbers stay gapless per ticket. Which of the submits in flight gets which number is not fixed.
 */
describe.each(TEST_BACKENDS)("submits arriving together on %s", (backend) => {
  let store: Store;
  let jobs: Jobs;
  let deps: SubmitDeps;

  beforeAll(async () => {
    store = await openTestStore(backend);
    jobs = createJobs({ store, pollIntervalMs: 60_000 });
    await jobs.start();
    deps = { store, jobs, customer, authorizer: everyone };
  });

  afterAll(async () => {
    await jobs.stop({ graceMs: 100 });
    await store.close();
  });

  it("stores submits that arrive together, each with its own number and one placement job", async () => {
    const ticket = `${ticketPrefix()}-1`;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        submitOrder(deps, draft(ticket), origin(`view:${randomUUID()}:${i}`)),
      ),
    );
    const orders = results.map((r) => queued(r).order);
    expect(results.every((r) => queued(r).created)).toBe(true);
    // Gapless.
    expect(orders.map((o) => o.externalDocumentNumber).sort(byNumber)).toEqual(
      Array.from({ length: 12 }, (_, i) => `${ticket}-${i + 1}`),
    );
    for (const order of orders) {
      expect(order.status).toBe("queued");
      expect(order.customerReference).toBe(ticket);
      expect(order.request.externalDocumentNumber).toBe(order.externalDocumentNumber);
      const job = await jobs.getJob(QUEUES.placeOrder, placeOrderJobId(order.id));
      expect(job?.data).toEqual({ orderId: order.id, queuedAt: expect.any(String) });
    }
    const { rows } = await store.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${jobs.schema}.job WHERE name = $1 AND data->>'orderId' = ANY($2)`,
      [QUEUES.placeOrder, orders.map((o) => o.id)],
    );
    expect(rows[0]?.n).toBe(12);
  });

  it("answers a double click racing itself with one order", async () => {
    const ticket = `${ticketPrefix()}-2`;
    const key = `view:${randomUUID()}`;
    const [first, second, other] = await Promise.all([
      submitOrder(deps, draft(ticket), origin(key)),
      submitOrder(deps, draft(ticket), origin(key)),
      submitOrder(deps, draft(ticket), origin(`view:${randomUUID()}`)),
    ]);
    expect([queued(first!).created, queued(second!).created].sort()).toEqual([false, true]);
    expect(queued(second!).order.id).toBe(queued(first!).order.id);
    expect(
      [queued(first!).order.externalDocumentNumber, queued(other!).order.externalDocumentNumber].sort(
        byNumber,
      ),
    ).toEqual([`${ticket}-1`, `${ticket}-2`]);
  });

  it("answers a repeated submit arriving with others without using up a number", async () => {
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
    expect(
      [queued(a!).order.externalDocumentNumber, queued(b!).order.externalDocumentNumber].sort(byNumber),
    ).toEqual([`${ticket}-2`, `${ticket}-3`]);
  });

  it("stores a typed document number beside generated ones, and refuses one already taken on its field", async () => {
    const ticket = `${ticketPrefix()}-4`;
    const typed = `${ticket}-TYPED`;
    const [mine, generated] = await Promise.all([
      submitOrder(deps, draft(ticket, { externalDocumentNumber: typed }), origin(`view:${randomUUID()}`)),
      submitOrder(deps, draft(ticket), origin(`view:${randomUUID()}`)),
    ]);
    expect(queued(mine!).order.externalDocumentNumber).toBe(typed);
    expect(queued(generated!).order.externalDocumentNumber).toBe(`${ticket}-1`);
    const taken = await submitOrder(
      deps,
      draft(ticket, { externalDocumentNumber: typed }),
      origin(`view:${randomUUID()}`),
    );
    expect(taken).toMatchObject({
      status: "invalid",
      errors: { externalDocumentNumber: [expect.stringContaining("already used")] },
    });
  });

  it("keeps the tickets' sequences apart among submits arriving together", async () => {
    const [t1, t2] = [`${ticketPrefix()}-5`, `${ticketPrefix()}-6`];
    const results = await Promise.all(
      [t1, t2, t1, t2, t1].map((t) => submitOrder(deps, draft(t), origin(`view:${randomUUID()}`))),
    );
    // The tickets are random, so which sorts first is too: order the expected numbers the same way.
    expect(results.map((r) => queued(r).order.externalDocumentNumber).sort(byNumber)).toEqual(
      [`${t1}-1`, `${t1}-2`, `${t1}-3`, `${t2}-1`, `${t2}-2`].sort(byNumber),
    );
  });

  it("skips a generated number an agent once typed by hand, alone and among others", async () => {
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
