import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCustomer } from "../../src/config/catalog.ts";
import { createJobs, type Jobs, QUEUES } from "../../src/jobs/index.ts";
import { placeOrderJob } from "../../src/orders/place.ts";
import type { OrderNotifier } from "../../src/orders/ports.ts";
import { postUpdateJobId } from "../../src/orders/updates/enqueue.ts";
import { EnvKeyProvider } from "../../src/secrets/env-provider.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent, insertEventIfNew } from "../../src/store/repositories/events.ts";
import { insertOrder, markPlaced } from "../../src/store/repositories/orders.ts";
import { attachOrphanEvents } from "../../src/webhooks/orphans.ts";
import { getTestStore } from "../helpers/db.ts";
import { exampleConfig } from "../helpers/slack-world.ts";
import { TEST_KEY, validOrder } from "../supplier/support/fixtures.ts";

let store: Store;
let jobs: Jobs;

beforeAll(async () => {
  store = await getTestStore();
  jobs = createJobs({ store, pollIntervalMs: 60_000 });
  await jobs.start();
});
afterAll(async () => {
  await jobs.stop({ graceMs: 100 });
});

/** Slack and the supplier must not be reached on this path: any call fails the test. */
const untouched: OrderNotifier = {
  publish: async () => {
    throw new Error("the order is placed already: nothing to show");
  },
  alertAdmins: async () => {
    throw new Error("no alert expected");
  },
};

describe("a placement job run again after its order was placed", () => {
  it("attaches the events that waited for the placement when the earlier run died before doing so", async () => {
    const orderId = randomUUID();
    const correlationId = randomUUID();
    const edn = `RR-${orderId.slice(0, 8)}`;
    await insertOrder(store, {
      id: orderId,
      profile: "Acme US",
      externalDocumentNumber: edn,
      customerReference: "RR-1",
      requestedBy: "U0AGENT01",
      source: "command",
      status: "placing",
      request: validOrder({ externalDocumentNumber: edn }),
    });
    // The supplier's first event beat the placement's answer, then the process died right after recording it.
    const eventId = `evt_${randomUUID()}`;
    const event = {
      id: eventId,
      correlationId,
      type: "order.status_changed",
      occurredAt: new Date().toISOString(),
    };
    await insertEventIfNew(store, { ...event, payload: { ...event, data: { status: "received" } } });
    await markPlaced(store, orderId, { correlationId, placedEarlier: false });

    const handler = placeOrderJob({
      store,
      customer: createCustomer(exampleConfig()),
      supplier: {
        environment: "test",
        createOrder: async () => {
          throw new Error("the order is placed already: the supplier must not be called again");
        },
      },
      apiKeys: new EnvKeyProvider({ value: TEST_KEY, production: false }),
      defaultSecretId: "SUPPLIER_API_KEY",
      notifier: untouched,
      jobs,
      onPlaced: async (order) => {
        if (order.correlationId) await attachOrphanEvents({ store, jobs }, order.id, order.correlationId);
      },
    });
    await handler({
      id: randomUUID(),
      queue: QUEUES.placeOrder,
      data: { orderId },
      attempt: 2,
      maxAttempts: 10,
      isFinalAttempt: false,
      createdAt: new Date(),
      signal: new AbortController().signal,
      logger: pino({ level: "silent" }),
    });

    expect(await getEvent(store, eventId)).toMatchObject({ orderId });
    expect(await jobs.getJob(QUEUES.postUpdate, postUpdateJobId(eventId))).toMatchObject({
      data: { orderId, eventId },
    });
  });
});
