/**
 * A placement run cut short: by a crash after it recorded the supplier's answer (the job runs again), or by a
 * shutdown while it waits out Slack's Retry-After (its abort signal).
 */
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.ts";
import type { Order } from "../../src/orders/model/order.ts";
import { showOrder } from "../../src/orders/show-order.ts";
import { placeOrderJobId } from "../../src/orders/submit.ts";
import { postUpdateJobId } from "../../src/orders/updates/enqueue.ts";
import { STATUS_LINE_BLOCK_ID } from "../../src/slack/blocks/updates/status-line.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { getOrder, insertOrder, markPlaced } from "../../src/store/repositories/orders.ts";
import { validOrder } from "../../tools/example-order.ts";
import { TEST_KEY } from "../supplier/support/fixtures.ts";
import { type StubSupplier, startStubSupplier, success } from "../supplier/support/stub-supplier.ts";
import { statusEvent, storeEventWithoutJob } from "../webhooks/support.ts";
import { AGENT, type Harness, HELPDESK, startHarness } from "./support/harness.ts";

let supplier: StubSupplier;
let h: Harness;

beforeAll(async () => {
  supplier = await startStubSupplier([success()]);
  h = await startHarness({ supplierUrl: supplier.baseUrl, apiKey: TEST_KEY });
});

afterAll(async () => {
  await h?.close();
  await supplier?.close();
});

async function storedOrder(ticket: string): Promise<Order> {
  const id = randomUUID();
  const edn = `${ticket}-1`;
  const { order } = await insertOrder(h.store, {
    id,
    profile: "Acme EU",
    externalDocumentNumber: edn,
    customerReference: ticket,
    requestedBy: AGENT,
    source: "command",
    idempotencyKey: `view:${id}`,
    slackChannelId: HELPDESK,
    status: "placing",
    request: validOrder({ externalDocumentNumber: edn, customerReference: ticket }),
  });
  return order;
}

function runPlacement(order: Order, signal: AbortSignal, attempt: number) {
  return h.placeOrderHandler({
    id: placeOrderJobId(order.id),
    queue: QUEUES.placeOrder,
    data: { orderId: order.id },
    attempt,
    maxAttempts: 4,
    isFinalAttempt: false,
    createdAt: order.createdAt,
    signal,
    logger: pino({ level: "silent" }),
  });
}

function statusLineOf(order: Order): string {
  const message = h.fake.message(order.slackChannelId ?? "", order.slackMessageTs ?? "");
  const blocks = (message?.versions.at(-1)?.blocks ?? []) as {
    block_id?: string;
    elements?: { text?: string }[];
  }[];
  return blocks.find((b) => b.block_id === STATUS_LINE_BLOCK_ID)?.elements?.[0]?.text ?? "";
}

describe("a placement cut short", () => {
  it("run again after recording the supplier's answer, shows the order placed and attaches the events that beat it", async () => {
    // The first run posted "placing…", the supplier took the order and sent its first event before the answer
    // was recorded; the process died right after recording it.
    const placing = await showOrder(h.store, h.slack.notifier, await storedOrder("INT-1"), {
      kind: "placing",
    });
    const correlationId = randomUUID();
    const event = statusEvent(correlationId, "received", new Date().toISOString());
    await storeEventWithoutJob(h.store, event); // no order has its correlation id yet: an orphan
    await markPlaced(h.store, placing.id, { correlationId, placedEarlier: false });
    expect(statusLineOf(placing)).not.toMatch(/Received/);

    await runPlacement(placing, new AbortController().signal, 2);

    expect(statusLineOf(placing)).toMatch(/Received/);
    expect(await getEvent(h.store, event.id)).toMatchObject({ orderId: placing.id });
    expect(await h.jobs.getJob(QUEUES.postUpdate, postUpdateJobId(event.id))).toMatchObject({
      data: { orderId: placing.id, eventId: event.id },
    });
    expect(supplier.requests).toHaveLength(0);
  });

  it("stops waiting out Slack's Retry-After as soon as its run is aborted, before reaching the supplier", async () => {
    const order = await storedOrder("INT-2");
    h.fake.rateLimit({ method: "chat.postMessage", count: 1, retryAfterSec: 30 });
    const controller = new AbortController();
    const run = runPlacement(order, controller.signal, 1);
    const outcome = run.then(
      () => "completed",
      (error: unknown) => (error as Error).name,
    );
    await h.fake.waitFor(() => h.fake.calls("chat.postMessage").find((c) => c.httpStatus === 429));
    const abortedAt = Date.now();
    controller.abort(new DOMException("shutting down", "AbortError"));
    expect(await outcome).toBe("AbortError");
    // Well before the 30 s Retry-After.
    expect(Date.now() - abortedAt).toBeLessThan(15_000);
    expect(supplier.requests).toHaveLength(0);
    // Left as it was, for the queue to run it again.
    expect((await getOrder(h.store, order.id))?.status).toBe("placing");
  });
});
