import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { NewOrder } from "../../src/orders/model/order.ts";
import type { Store } from "../../src/store/db.ts";
import {
  applySupplierStatus,
  getOrder,
  getOrderByCorrelationId,
  insertOrder,
  listRecentOrdersForUser,
  markFailed,
  markPlaced,
  markPlacing,
  markRejected,
  mergeTracking,
  resetForResubmit,
  setCorrelationId,
  setOriginMessage,
} from "../../src/store/repositories/orders.ts";
import type { CreateOrderRequest } from "../../src/supplier/schema.ts";
import { getTestStore, TEST_BACKENDS } from "../helpers/db.ts";

function request(edn: string): CreateOrderRequest {
  return {
    externalDocumentNumber: edn,
    type: "New",
    customerReference: "TICKET-1",
    invoice: { id: "INV-1" },
    shipping: {
      deliveryAt: "Office",
      contact: {
        firstName: "Ada",
        lastName: "Lovelace",
        phoneNumber: "+44 20 7946 0958",
        email: "ada@example.com",
      },
      address1: "1 Main St",
      city: "London",
      zipCode: "N1 1AA",
      countryIso2: "GB",
    },
    orderLines: [{ itemNumber: "LAPTOP-14", quantity: 1 }],
  };
}

function newOrder(overrides: Partial<NewOrder> = {}): NewOrder {
  const edn = `OD-${randomUUID().slice(0, 8)}`;
  return {
    id: randomUUID(),
    profile: "default",
    externalDocumentNumber: edn,
    customerReference: "TICKET-1",
    requestedBy: "U123",
    source: "command",
    request: request(edn),
    draft: { lines: [{ item: "LAPTOP-14", qty: 1 }] },
    ...overrides,
  };
}

describe.each(TEST_BACKENDS)("orders repository on %s", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await getTestStore(backend);
  });

  it("stores a new order as queued with its request and draft", async () => {
    const input = newOrder({ slackTeamId: "T1", slackChannelId: "C1" });
    const { order, created } = await insertOrder(store, input);
    expect(created).toBe(true);
    expect(order).toMatchObject({
      id: input.id,
      status: "queued",
      externalDocumentNumber: input.externalDocumentNumber,
      correlationId: null,
      slackChannelId: "C1",
      request: input.request,
      draft: { lines: [{ item: "LAPTOP-14", qty: 1 }] },
      statusOccurredAt: null,
    });
    expect(order.createdAt).toBeInstanceOf(Date);
    expect(await getOrder(store, input.id)).toEqual(order);
  });

  it("keeps the needed-by date, the expected delivery and an exact total as given, whatever the time zone", async () => {
    const input = newOrder({
      neededBy: "2026-12-07",
      expectedDelivery: "2026-12-31",
      expectedDeliverySource: "lead_time",
      total: "12345678901234.5678",
      currency: "EUR",
    });
    const { order } = await insertOrder(store, input);
    expect(order).toMatchObject({
      neededBy: "2026-12-07",
      expectedDelivery: "2026-12-31",
      expectedDeliverySource: "lead_time",
      total: "12345678901234.5678",
      currency: "EUR",
    });
    const plain = await insertOrder(store, newOrder());
    expect(plain.order).toMatchObject({
      neededBy: null,
      expectedDelivery: null,
      total: null,
      currency: null,
    });
  });

  it("places one order for a double submit with the same idempotency key", async () => {
    const key = `view-${randomUUID()}`;
    const first = await insertOrder(store, newOrder({ idempotencyKey: key }));
    const second = await insertOrder(store, newOrder({ idempotencyKey: key }));
    expect(second.created).toBe(false);
    expect(second.order.id).toBe(first.order.id);
    const [a, b] = await Promise.all([
      insertOrder(store, newOrder({ idempotencyKey: `${key}-race` })),
      insertOrder(store, newOrder({ idempotencyKey: `${key}-race` })),
    ]);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect(a.order.id).toBe(b.order.id);
  });

  it("rejects a second order with the same document number in the same profile", async () => {
    const first = newOrder();
    await insertOrder(store, first);
    await expect(
      insertOrder(store, newOrder({ externalDocumentNumber: first.externalDocumentNumber })),
    ).rejects.toMatchObject({ code: "23505" });
    const otherProfile = newOrder({ externalDocumentNumber: first.externalDocumentNumber, profile: "emea" });
    expect((await insertOrder(store, otherProfile)).created).toBe(true);
  });

  it("records the originating message, threading on it by default", async () => {
    const { order } = await insertOrder(store, newOrder());
    const updated = await setOriginMessage(store, order.id, {
      teamId: "T1",
      channelId: "C9",
      messageTs: "171.5",
    });
    expect(updated).toMatchObject({
      slackTeamId: "T1",
      slackChannelId: "C9",
      slackMessageTs: "171.5",
      slackThreadTs: "171.5",
    });
  });

  it("moves queued → placing → received and keeps the correlation id, which then finds the order", async () => {
    const { order } = await insertOrder(store, newOrder());
    expect((await markPlacing(store, order.id))?.status).toBe("placing");
    const correlationId = randomUUID();
    const placed = await markPlaced(store, order.id, { correlationId, placedEarlier: false });
    expect(placed).toMatchObject({ status: "received", correlationId, failure: null });
    expect((await getOrderByCorrelationId(store, correlationId))?.id).toBe(order.id);
    // A placed order is never placed again, and its correlation id never replaced.
    expect(await markPlacing(store, order.id)).toBeNull();
    expect(
      (await markPlaced(store, order.id, { correlationId: randomUUID(), placedEarlier: false }))
        ?.correlationId,
    ).toBe(correlationId);
    expect(await setCorrelationId(store, order.id, randomUUID())).toBeNull();
  });

  it("records an order placed by an earlier attempt without a correlation id until one is learnt", async () => {
    const { order } = await insertOrder(store, newOrder());
    const placed = await markPlaced(store, order.id, { correlationId: null, placedEarlier: true });
    expect(placed).toMatchObject({ status: "received", correlationId: null });
    const correlationId = randomUUID();
    expect((await setCorrelationId(store, order.id, correlationId))?.correlationId).toBe(correlationId);
  });

  it("marks a rejection as failed with the supplier's code, and lets the agent fix and resubmit it", async () => {
    const { order } = await insertOrder(store, newOrder());
    await markPlacing(store, order.id);
    const rejected = await markRejected(store, order.id, {
      kind: "rejected",
      reason: "rejected",
      code: "VALIDATION_FAILED",
      details: { "Shipping.CountryIso2": ["unknown country"] },
    });
    expect(rejected?.status).toBe("failed");
    expect(rejected?.failure).toMatchObject({ kind: "rejected", code: "VALIDATION_FAILED" });

    const fixed = request(`${order.externalDocumentNumber}-2`);
    expect(rejected).toMatchObject({ resubmittedBy: null, resubmittedAt: null });
    const resubmitted = await resetForResubmit(store, order.id, {
      resubmittedBy: "U0COLLEAGUE",
      request: fixed,
      draft: { fixed: true },
    });
    expect(resubmitted).toMatchObject({
      status: "queued",
      failure: null,
      externalDocumentNumber: fixed.externalDocumentNumber,
      draft: { fixed: true },
      requestedBy: order.requestedBy,
      resubmittedBy: "U0COLLEAGUE",
    });
    expect(resubmitted?.resubmittedAt).toBeInstanceOf(Date);
    expect(resubmitted?.request).toEqual(fixed);
    // Only a failed order can be resubmitted.
    expect(
      await resetForResubmit(store, order.id, { resubmittedBy: "U0COLLEAGUE", request: fixed }),
    ).toBeNull();
  });

  it("marks a placement that gave up as failed, but never a placed order", async () => {
    const { order } = await insertOrder(store, newOrder());
    const gaveUp = {
      kind: "failed",
      reason: "retries_exhausted",
      code: "SUPPLIER_UNAVAILABLE",
      message: "supplier unavailable",
      maybePlaced: false,
      retriesExhausted: true,
    } as const;
    expect((await markFailed(store, order.id, gaveUp))?.failure).toEqual(gaveUp);
    const placed = await insertOrder(store, newOrder());
    await markPlaced(store, placed.order.id, { correlationId: randomUUID(), placedEarlier: false });
    expect(
      await markFailed(store, placed.order.id, { kind: "failed", reason: "unexpected", code: "LATE" }),
    ).toBeNull();
  });

  it("reads the failure rows written by the previous version (no `reason`, ad-hoc keys) as typed variants", async () => {
    const at = "2025-01-01T10:00:00.000Z";
    const cases: [stored: unknown, expected: object][] = [
      [
        {
          kind: "rejected",
          code: "VALIDATION_FAILED",
          message: "bad",
          details: { "Shipping.City": ["unknown"] },
        },
        {
          kind: "rejected",
          reason: "rejected",
          code: "VALIDATION_FAILED",
          details: { "Shipping.City": ["unknown"] },
        },
      ],
      [
        { kind: "rejected", code: "DUPLICATE_ORDER", message: "exists" },
        { kind: "rejected", reason: "duplicate_number", code: "DUPLICATE_ORDER", message: "exists" },
      ],
      [
        {
          kind: "retrying",
          maybePlaced: true,
          attempt: 3,
          name: "SupplierUnavailableError",
          code: "SUPPLIER_UNAVAILABLE",
          message: "down",
          correlationId: null,
        },
        { kind: "retrying", reason: "retrying", code: "SUPPLIER_UNAVAILABLE", maybePlaced: true, attempt: 3 },
      ],
      [
        {
          kind: "failed",
          name: "SupplierServerError",
          code: "SERVER_ERROR",
          message: "502",
          maybePlaced: false,
          retriesExhausted: true,
        },
        {
          kind: "failed",
          reason: "retries_exhausted",
          code: "SERVER_ERROR",
          maybePlaced: false,
          retriesExhausted: true,
        },
      ],
      [
        {
          kind: "failed",
          name: "UnauthorizedError",
          code: "UNAUTHORIZED",
          message: "key rejected",
          correlationId: null,
        },
        { kind: "failed", reason: "key_refused", code: "UNAUTHORIZED", message: "key rejected" },
      ],
      [
        { kind: "failed", name: "SecretNotFoundError", code: "SECRET_NOT_FOUND", message: "no secret" },
        { kind: "failed", reason: "key_unavailable", code: "SECRET_NOT_FOUND" },
      ],
      [
        { kind: "failed", code: "ENVIRONMENT_MISMATCH", message: "wrong environment" },
        { kind: "failed", reason: "profile_misconfigured", code: "ENVIRONMENT_MISMATCH" },
      ],
      [
        {
          kind: "failed",
          code: "WORKFLOW_DEADLINE",
          message: "late",
          maybePlaced: true,
          retriedForMs: 60_000,
          deadlineAt: at,
        },
        {
          kind: "failed",
          reason: "workflow_deadline",
          maybePlaced: true,
          retriedForMs: 60_000,
          deadlineAt: at,
        },
      ],
      [
        { kind: "failed", name: "ProtocolError", code: "PROTOCOL_ERROR", message: "not the envelope" },
        { kind: "failed", reason: "unexpected", code: "PROTOCOL_ERROR", message: "not the envelope" },
      ],
      // Not a failure we ever wrote: still readable, so the order is never hidden by it.
      [
        { kind: 42, message: "odd" },
        { kind: "failed", reason: "unexpected", message: "odd" },
      ],
    ];
    for (const [stored, expected] of cases) {
      const { order } = await insertOrder(store, newOrder());
      await store.query("UPDATE orders SET status = 'failed', last_error = $2 WHERE id = $1", [
        order.id,
        JSON.stringify(stored),
      ]);
      expect((await getOrder(store, order.id))?.failure, JSON.stringify(stored)).toMatchObject(expected);
    }
  });

  it("applies supplier statuses only forward: an older or lower event never overwrites a newer status", async () => {
    const { order } = await insertOrder(store, newOrder());
    await markPlaced(store, order.id, { correlationId: randomUUID(), placedEarlier: false });
    const t = (m: number) => new Date(Date.UTC(2025, 0, 1, 10, m));

    expect((await applySupplierStatus(store, order.id, "packed", t(30)))?.status).toBe("packed");
    // Lower rank, even if later: ignored.
    expect(await applySupplierStatus(store, order.id, "picked", t(40))).toBeNull();
    // Same status, older time: ignored; newer time: refreshes the time.
    expect(await applySupplierStatus(store, order.id, "packed", t(20))).toBeNull();
    expect((await applySupplierStatus(store, order.id, "packed", t(35)))?.statusOccurredAt).toEqual(t(35));
    expect((await applySupplierStatus(store, order.id, "shipped", t(50)))?.status).toBe("shipped");
    expect(await applySupplierStatus(store, order.id, "partially_shipped", t(55))).toBeNull();
    const final = await getOrder(store, order.id);
    expect(final).toMatchObject({ status: "shipped", statusOccurredAt: t(50) });
  });

  it("lets a supplier status replace a failed placement (the request had reached the supplier)", async () => {
    const { order } = await insertOrder(store, newOrder());
    await markFailed(store, order.id, { kind: "failed", reason: "unexpected", code: "TIMEOUT" });
    expect((await applySupplierStatus(store, order.id, "received", new Date()))?.status).toBe("received");
  });

  it("merges tracking per parcel without losing a concurrent update", async () => {
    const { order } = await insertOrder(store, newOrder());
    await Promise.all([
      mergeTracking(store, order.id, { "1": { carrier: "UPS", trackingNumber: "1Z1" } }),
      mergeTracking(store, order.id, { "2": { carrier: "UPS", trackingNumber: "1Z2" } }),
    ]);
    expect((await getOrder(store, order.id))?.tracking).toEqual({
      "1": { carrier: "UPS", trackingNumber: "1Z1" },
      "2": { carrier: "UPS", trackingNumber: "1Z2" },
    });
  });

  it("lists a user's most recent orders first, up to the limit", async () => {
    const user = `U-${randomUUID()}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { order } = await insertOrder(store, newOrder({ requestedBy: user }));
      ids.push(order.id);
    }
    const recent = await listRecentOrdersForUser(store, user, 2);
    expect(recent).toHaveLength(2);
    expect(recent.every((o) => o.requestedBy === user)).toBe(true);
    expect(recent[0]!.createdAt.getTime()).toBeGreaterThanOrEqual(recent[1]!.createdAt.getTime());
  });

  it("composes into a transaction: a rollback leaves no order behind", async () => {
    const input = newOrder();
    await expect(
      store.transaction(async (tx) => {
        await insertOrder(tx, input);
        throw new Error("Slack said no");
      }),
    ).rejects.toThrow("Slack said no");
    expect(await getOrder(store, input.id)).toBeNull();
  });
});
