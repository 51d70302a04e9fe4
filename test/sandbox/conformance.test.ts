/**
 * The sandbox against the spec (../shared/spec/order-placement-api.md) and our documented decisions
 * (docs/sandbox.md), over real HTTP.
 */
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { envelopeSchema, failureEnvelopeSchema, successEnvelopeSchema } from "../../src/supplier/schema.ts";
import {
  call,
  createOrder,
  dispatcher,
  KEY,
  LIVE_KEY,
  OTHER_KEY,
  uniqueNumber,
  validOrder,
} from "./support.ts";

const SAME_CUSTOMER_KEY = "ods_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const OFFSET_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

let sandbox: SandboxHandle;
let url: string;

beforeAll(async () => {
  sandbox = await startSandbox({
    apiKeys: [`acme:${KEY}`, `acme:${SAME_CUSTOMER_KEY}`, `globex:${OTHER_KEY}`],
    seed: 1,
    speed: 1,
  });
  url = sandbox.url;
});
afterAll(async () => {
  await sandbox.close();
  await dispatcher.close();
});
afterEach(() => {
  sandbox.setFaults({
    failRate: 0,
    latencyMs: 0,
    outage: false,
    resetConnections: false,
    resetAfterPlacing: false,
  });
});

function expectFailure(answer: { status: number; json: unknown }, status: number, code: string) {
  expect(answer.status).toBe(status);
  const body = answer.json as {
    success: boolean;
    data: unknown;
    error: { code: string; message: string };
    meta: unknown;
  };
  expect(body.success).toBe(false);
  expect(body.data).toBeNull();
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(10);
  expect((body.meta as { correlationId: string }).correlationId).toMatch(/^[0-9a-f-]{36}$/);
  expect((body.meta as { timestamp: string }).timestamp).toMatch(OFFSET_ISO);
  return body;
}

describe("POST /orders/create: success", () => {
  it("answers 200 with the envelope: data.correlationId equals meta.correlationId, a UUID, timestamp with offset", async () => {
    const answer = await createOrder(url, validOrder());
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    const body = successEnvelopeSchema.parse(answer.json);
    expect(answer.json.error).toBeNull();
    expect(body.data.correlationId).toBe(body.meta.correlationId);
    expect(body.data.correlationId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(body.meta.timestamp).toMatch(/\+00:00$/);
    expect(Math.abs(Date.parse(body.meta.timestamp) - Date.now())).toBeLessThan(5_000);
  });

  it("accepts application/json with a charset, and type omitted (default New)", async () => {
    const { type: _omitted, ...order } = validOrder();
    const answer = await call(`${url}/orders/create`, {
      body: JSON.stringify(order),
      contentType: "application/json; charset=utf-8",
    });
    expect(answer.status).toBe(200);
    const stored = await sandbox.order(answer.json.data.correlationId);
    expect(stored?.request.type).toBe("New");
  });

  it("gives every accepted order its own correlationId and stores it with the request", async () => {
    const first = await createOrder(url, validOrder({ customerReference: "TICKET-1" }));
    const second = await createOrder(url, validOrder({ customerReference: "TICKET-2" }));
    expect(first.json.data.correlationId).not.toBe(second.json.data.correlationId);
    const stored = await sandbox.order(first.json.data.correlationId);
    expect(stored).toMatchObject({
      customer: "acme",
      customerReference: "TICKET-1",
      apiKey: "ods_test_…cdef",
    });
  });
});

describe("POST /orders/create: INVALID_PAYLOAD (400)", () => {
  it.each([
    ["malformed JSON", "{ not json"],
    ["truncated JSON", '{"externalDocumentNumber": "PO-1"'],
    ["an empty body", ""],
    ["a JSON array", "[]"],
    ["a JSON string", '"order"'],
    ["a JSON number", "42"],
    ["JSON null", "null"],
  ])("answers %s with INVALID_PAYLOAD and null details", async (_name, body) => {
    const answer = await call(`${url}/orders/create`, { body });
    const failure = expectFailure(answer, 400, "INVALID_PAYLOAD");
    expect(answer.json.error.details).toBeNull();
    expect(failure.error.message).toMatch(/valid JSON|JSON object|empty/);
    expect(failureEnvelopeSchema.safeParse(answer.json).success).toBe(true);
  });
});

describe("POST /orders/create: VALIDATION_FAILED (400)", () => {
  it("reports every failing field at once under the supplier's paths", async () => {
    const order = validOrder({
      invoice: { id: "" },
      shipping: { ...validOrder().shipping, countryIso2: "XX" },
      orderLines: [],
    });
    const answer = await createOrder(url, order);
    const failure = expectFailure(answer, 400, "VALIDATION_FAILED");
    expect(failure.error.message).toBe("One or more validation errors occurred.");
    const details = answer.json.error.details as Record<string, string[]>;
    expect(Object.keys(details).sort()).toEqual(["Invoice.Id", "OrderLines", "Shipping.CountryIso2"]);
    for (const messages of Object.values(details)) expect(messages.length).toBeGreaterThan(0);
  });

  it("requires at least one line with quantity greater than 0", async () => {
    const answer = await createOrder(
      url,
      validOrder({
        orderLines: [
          { itemNumber: "A", quantity: 0 },
          { itemNumber: "B", quantity: 0 },
        ],
      }),
    );
    expectFailure(answer, 400, "VALIDATION_FAILED");
    expect(answer.json.error.details.OrderLines[0]).toMatch(/quantity greater than 0/);
  });

  it("rejects an unrecognised invoice country, a missing invoice id and a bad contact together", async () => {
    const base = validOrder();
    const answer = await createOrder(url, {
      ...base,
      invoice: { countryIso2: "UK" },
      shipping: { ...base.shipping, contact: { ...base.shipping.contact, email: "not-an-email" } },
    });
    expectFailure(answer, 400, "VALIDATION_FAILED");
    expect(Object.keys(answer.json.error.details)).toEqual(
      expect.arrayContaining(["Invoice.Id", "Invoice.CountryIso2", "Shipping.Contact.Email"]),
    );
  });

  it("accepts a line with quantity 0 beside one with quantity > 0", async () => {
    const answer = await createOrder(
      url,
      validOrder({
        orderLines: [
          { itemNumber: "A", quantity: 0 },
          { itemNumber: "B", quantity: 1 },
        ],
      }),
    );
    expect(answer.status).toBe(200);
  });

  it("does not store a rejected order, so its number stays free", async () => {
    const number = uniqueNumber();
    expect(
      (await createOrder(url, validOrder({ externalDocumentNumber: number, orderLines: [] }))).status,
    ).toBe(400);
    expect((await createOrder(url, validOrder({ externalDocumentNumber: number }))).status).toBe(200);
  });
});

describe("POST /orders/create: DUPLICATE_ORDER (409)", () => {
  it("refuses a number the customer already placed, naming it, whichever of its keys is used", async () => {
    const number = uniqueNumber();
    expect((await createOrder(url, validOrder({ externalDocumentNumber: number }))).status).toBe(200);
    for (const key of [KEY, SAME_CUSTOMER_KEY]) {
      const answer = await createOrder(url, validOrder({ externalDocumentNumber: number }), key);
      const failure = expectFailure(answer, 409, "DUPLICATE_ORDER");
      expect(failure.error.message).toContain(number);
      expect(answer.json.error.details).toBeNull();
    }
  });

  it("lets another customer use the same number", async () => {
    const number = uniqueNumber();
    expect((await createOrder(url, validOrder({ externalDocumentNumber: number }), KEY)).status).toBe(200);
    expect((await createOrder(url, validOrder({ externalDocumentNumber: number }), OTHER_KEY)).status).toBe(
      200,
    );
  });

  it("places exactly one of many concurrent requests with the same number", async () => {
    const number = uniqueNumber();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => createOrder(url, validOrder({ externalDocumentNumber: number }))),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9);
  });
});

describe("authentication (401 with the envelope)", () => {
  it.each([
    ["a missing X-Api-Key", null, /missing/],
    ["a malformed key", "not-a-key", /not an API key/],
    ["an unknown test key", "ods_test_99999999999999999999999999999999", /not known to this sandbox/],
    ["a live key", LIVE_KEY, /test environment/],
  ])("refuses %s", async (_name, key, message) => {
    const answer = await call(`${url}/orders/create`, { body: JSON.stringify(validOrder()), key });
    const failure = expectFailure(answer, 401, "UNAUTHORIZED");
    expect(failure.error.message).toMatch(message);
    expect(answer.text).not.toContain(LIVE_KEY);
    expect(answer.text).not.toContain("99999999999999999999999999999999");
  });

  it("checks the key before the body, so an unauthenticated caller learns nothing about its payload", async () => {
    const answer = await call(`${url}/orders/create`, { body: "{ not json", key: null });
    expect(answer.status).toBe(401);
  });
});

describe("HTTP decisions (all with the envelope)", () => {
  it("answers an unknown path with 404", async () => {
    const answer = await call(`${url}/orders/lookup`, { method: "GET" });
    expectFailure(answer, 404, "NOT_FOUND");
    expect(envelopeSchema.safeParse(answer.json).success).toBe(false); // NOT_FOUND is outside the spec's four codes
  });

  it("answers a wrong method with 405 and an Allow header", async () => {
    const answer = await call(`${url}/orders/create`, { method: "GET" });
    expectFailure(answer, 405, "METHOD_NOT_ALLOWED");
    expect(answer.headers.allow).toBe("POST");
    const inspect = await call(`${url}/_sandbox/orders`, { method: "DELETE" });
    expectFailure(inspect, 405, "METHOD_NOT_ALLOWED");
    expect(inspect.headers.allow).toBe("GET");
  });

  it("answers a body over 1 MiB with 413 INVALID_PAYLOAD, whether announced or streamed", async () => {
    const big = JSON.stringify({ ...validOrder(), padding: "x".repeat(1_048_576) });
    const announced = await call(`${url}/orders/create`, { body: big });
    expectFailure(announced, 413, "INVALID_PAYLOAD");
    async function* chunks() {
      for (let i = 0; i < 20; i++) yield Buffer.alloc(64 * 1024, 0x20);
    }
    const streamed = await call(`${url}/orders/create`, { body: chunks() });
    expectFailure(streamed, 413, "INVALID_PAYLOAD");
  });

  it("accepts a body of exactly 1 MiB (whitespace-padded valid order)", async () => {
    const json = JSON.stringify(validOrder());
    const answer = await call(`${url}/orders/create`, { body: json + " ".repeat(1_048_576 - json.length) });
    expect(answer.status).toBe(200);
  });

  it.each([
    ["text/plain", "text/plain"],
    ["form encoding", "application/x-www-form-urlencoded"],
    ["no content type", null],
  ])("answers %s with 415 INVALID_PAYLOAD", async (_name, contentType) => {
    const answer = await call(`${url}/orders/create`, { body: JSON.stringify(validOrder()), contentType });
    expectFailure(answer, 415, "INVALID_PAYLOAD");
  });
});

describe("fault injection", () => {
  it("answers INTERNAL_SERVER_ERROR (500, no stack) for the fail-rate share and stores nothing", async () => {
    sandbox.setFaults({ failRate: 1 });
    const number = uniqueNumber();
    const answer = await createOrder(url, validOrder({ externalDocumentNumber: number }));
    const failure = expectFailure(answer, 500, "INTERNAL_SERVER_ERROR");
    expect(failure.error.message).toMatch(/try again later/);
    expect(answer.text).not.toMatch(/at \S+ \(|\.ts:\d+/);
    sandbox.setFaults({ failRate: 0 });
    expect((await createOrder(url, validOrder({ externalDocumentNumber: number }))).status).toBe(200);
  });

  it("fails about the configured share of calls, repeatably under a seed", async () => {
    const run = async () => {
      const local = await startSandbox({ apiKeys: [KEY], seed: "fail-share", failRate: 0.3 });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await createOrder(local.url, validOrder())).status);
      await local.close();
      return statuses;
    };
    const first = await run();
    const failed = first.filter((s) => s === 500).length;
    expect(failed).toBeGreaterThan(3);
    expect(failed).toBeLessThan(25);
    expect(await run()).toEqual(first);
  });

  it("adds latency", async () => {
    sandbox.setFaults({ latencyMs: 120 });
    const started = performance.now();
    await createOrder(url, validOrder());
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });

  it("answers a plain-text 503 with Retry-After during an outage", async () => {
    sandbox.setFaults({ outage: true });
    const answer = await createOrder(url, validOrder());
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("1");
    expect(answer.json).toBeUndefined();
  });

  it("resets connections before placing, or after placing (the order then exists)", async () => {
    sandbox.setFaults({ resetConnections: true });
    const number = uniqueNumber();
    await expect(createOrder(url, validOrder({ externalDocumentNumber: number }))).rejects.toThrow();
    sandbox.setFaults({ resetConnections: false, resetAfterPlacing: true });
    await expect(createOrder(url, validOrder({ externalDocumentNumber: number }))).rejects.toThrow();
    sandbox.setFaults({ resetAfterPlacing: false });
    expect((await createOrder(url, validOrder({ externalDocumentNumber: number }))).status).toBe(409);
  });

  it("rejects impossible fault settings", () => {
    expect(() => sandbox.setFaults({ failRate: 2 })).toThrow(/failRate/);
    expect(() => sandbox.setFaults({ latencyMs: -1 })).toThrow(/latencyMs/);
  });
});

describe("GET /_sandbox/orders", () => {
  it("lists orders newest first and shows one with its request, status, events and upcoming steps", async () => {
    const placed = await createOrder(url, validOrder({ customerReference: "TICKET-LIST" }));
    const id = placed.json.data.correlationId as string;
    const list = await call(`${url}/_sandbox/orders?limit=5`, {
      method: "GET",
      key: null,
      contentType: null,
    });
    expect(list.status).toBe(200);
    expect(list.json.data.orders.length).toBeLessThanOrEqual(5);
    expect(list.json.data.orders[0]).toMatchObject({ correlationId: id, customerReference: "TICKET-LIST" });

    const one = await call(`${url}/_sandbox/orders/${id}`, { method: "GET", key: null, contentType: null });
    expect(one.status).toBe(200);
    const order = one.json.data.order;
    expect(order).toMatchObject({ correlationId: id, status: "received", customer: "acme" });
    expect(order.request.customerReference).toBe("TICKET-LIST");
    expect(order.upcoming.length + order.events.length).toBe(order.eventsPlanned);
    expect(order.upcoming.at(-1)).toMatchObject({ type: "order.status_changed", status: "delivered" });
  });

  it("filters by customer", async () => {
    await createOrder(url, validOrder(), OTHER_KEY);
    const list = await call(`${url}/_sandbox/orders?customer=globex`, {
      method: "GET",
      key: null,
      contentType: null,
    });
    expect(list.json.data.orders.length).toBeGreaterThan(0);
    expect(list.json.data.orders.every((o: { customer: string }) => o.customer === "globex")).toBe(true);
  });

  it("answers an unknown correlationId with 404", async () => {
    const answer = await call(`${url}/_sandbox/orders/00000000-0000-4000-8000-000000000000`, {
      method: "GET",
      key: null,
      contentType: null,
    });
    expectFailure(answer, 404, "NOT_FOUND");
  });
});

describe("connection handling", () => {
  it("keeps serving after a client drops mid-body", async () => {
    await new Promise<void>((resolve) => {
      const { port, hostname } = new URL(url);
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /orders/create HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"exte`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 20);
      });
    });
    expect((await createOrder(url, validOrder())).status).toBe(200);
  });
});
