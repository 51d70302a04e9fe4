import { getEventListeners } from "node:events";
import { Writable } from "node:stream";
import { inspect } from "node:util";
import pino from "pino";
import { Agent, buildConnector } from "undici";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { SupplierClient, type SupplierClientOptions } from "../../src/supplier/client.ts";
import {
  DuplicateOrderError,
  InvalidPayloadError,
  KeyEnvironmentMismatchError,
  LocalValidationError,
  MalformedApiKeyError,
  ProtocolError,
  RateLimitedError,
  SupplierServerError,
  SupplierUnavailableError,
  SupplierValidationError,
  UnauthorizedError,
} from "../../src/supplier/errors.ts";
import { validOrder } from "../../tools/example-order.ts";
import { LIVE_KEY, TEST_KEY } from "./support/fixtures.ts";
import {
  failure,
  type Reply,
  type StubSupplier,
  startStubSupplier,
  success,
} from "./support/stub-supplier.ts";

const dispatcher = new Agent({ keepAliveTimeout: 5_000 });
afterAll(() => dispatcher.close());

let stub: StubSupplier | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

interface Harness {
  client: SupplierClient;
  stub: StubSupplier;
  sleeps: number[];
  logs: string[];
}

async function harness(replies: Reply[], options: Partial<SupplierClientOptions> = {}): Promise<Harness> {
  stub = await startStubSupplier(replies);
  const sleeps: number[] = [];
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const client = new SupplierClient({
    baseUrl: stub.baseUrl,
    environment: "test",
    dispatcher,
    timeoutMs: 1_000,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    logger: pino({ level: "debug" }, sink),
    ...options,
  });
  return { client, stub, sleeps, logs };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** The key must not be reachable from an error: message, stack, own properties, cause chain. */
function expectNoKey(value: unknown) {
  const rendered = [
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    JSON.stringify(value),
    String(value),
  ].join("\n");
  expect(rendered).not.toContain(TEST_KEY);
  expect(rendered).not.toContain(TEST_KEY.slice(9, 30));
}

/** `expectNoKey`, and the same for each shape a caller or a log can take: message, `toJSON()`, the cause chain. */
function expectKeyScrubbed(error: unknown) {
  expectNoKey(error);
  const chain: unknown[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause) chain.push(current);
  expect(chain.length).toBeGreaterThan(0);
  for (const link of chain as (Error & { toJSON?: () => unknown })[]) {
    expect(link.message).not.toContain(TEST_KEY);
    expect(JSON.stringify(link)).not.toContain(TEST_KEY);
    if (link.toJSON) expect(JSON.stringify(link.toJSON())).not.toContain(TEST_KEY);
  }
}

/** A connection pool whose connections take `delayMs` to open (a slow network, a SYN lost and resent...). */
function slowConnectAgent(delayMs: number): Agent {
  const connect = buildConnector({});
  return new Agent({
    connect: (options, callback) => {
      setTimeout(() => connect(options, callback), delayMs);
    },
  });
}

describe("SupplierClient.createOrder", () => {
  it("posts the checked request with the key and returns the correlationId and timestamp", async () => {
    const id = "0b7c2f0e-5d7e-4a8b-9c1d-2e3f4a5b6c7d";
    const h = await harness([success(id)]);
    const result = await h.client.createOrder(validOrder(), { apiKey: TEST_KEY });
    expect(result).toEqual({
      placedEarlier: false,
      correlationId: id,
      timestamp: "2025-01-15T10:30:00.000+00:00",
      externalDocumentNumber: "PO-2025-0001",
      attempts: 1,
    });
    const [sent] = h.stub.requests;
    expect(sent?.method).toBe("POST");
    expect(sent?.url).toBe("/orders/create");
    expect(sent?.headers["x-api-key"]).toBe(TEST_KEY);
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(sent?.body ?? "")).toMatchObject({
      externalDocumentNumber: "PO-2025-0001",
      type: "New",
    });
  });

  it("appends /orders/create to a base URL with a path, on its own connection pool by default", async () => {
    const h = await harness([success()]);
    const client = new SupplierClient({ baseUrl: `${h.stub.baseUrl}/api/v1`, environment: "test" });
    await client.createOrder(validOrder(), { apiKey: TEST_KEY });
    await client.close();
    expect(h.stub.requests[0]?.url).toBe("/api/v1/orders/create");
  });

  it("accepts any 2xx with success true", async () => {
    const h = await harness([{ ...(success() as { status: number; body: object }), status: 200 }]);
    expect((await h.client.createOrder(validOrder(), { apiKey: TEST_KEY })).placedEarlier).toBe(false);
  });

  it("reuses one keep-alive connection across orders", async () => {
    const h = await harness([success()]);
    for (let i = 0; i < 6; i++) await h.client.createOrder(validOrder(), { apiKey: TEST_KEY });
    // undici's pool may open a second socket while the first is being released; it must not open one per order.
    expect(new Set(h.stub.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
  });

  describe("maps each error code by the envelope, whatever the status", () => {
    it("VALIDATION_FAILED carries the details map", async () => {
      const details = { "Invoice.Id": ["'Invoice Id' must not be empty."] };
      const h = await harness([
        failure(422, "VALIDATION_FAILED", "One or more validation errors occurred.", details),
      ]);
      const error = await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }));
      expect(error).toBeInstanceOf(SupplierValidationError);
      expect(error).toMatchObject({ code: "VALIDATION_FAILED", details });
      expect((error as SupplierValidationError).correlationId).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("DUPLICATE_ORDER names the number", async () => {
      const h = await harness([failure(200, "DUPLICATE_ORDER", "Order PO-2025-0001 already exists")]);
      const error = await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }));
      expect(error).toBeInstanceOf(DuplicateOrderError);
      expect(error).toMatchObject({ code: "DUPLICATE_ORDER", externalDocumentNumber: "PO-2025-0001" });
    });

    it("INVALID_PAYLOAD", async () => {
      const h = await harness([failure(400, "INVALID_PAYLOAD", "Make sure the body is valid JSON")]);
      expect(await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }))).toBeInstanceOf(
        InvalidPayloadError,
      );
    });

    it("INTERNAL_SERVER_ERROR is retried, then reported as unavailable with the server error as cause", async () => {
      const h = await harness([failure(500, "INTERNAL_SERVER_ERROR", "Try again later")]);
      const error = (await rejection(
        h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
      )) as SupplierUnavailableError;
      expect(error).toBeInstanceOf(SupplierUnavailableError);
      expect(error).toMatchObject({ code: "SUPPLIER_UNAVAILABLE", reason: "retries_exhausted", attempts: 3 });
      expect(error.cause).toBeInstanceOf(SupplierServerError);
      expect(h.stub.requests).toHaveLength(3);
      expect(h.sleeps).toEqual([250, 500]); // full jitter with random() = 0.5: half of 500, then of 1000
    });
  });

  it.each([
    ["an empty body", { status: 401 }],
    ["a non-JSON body", { status: 401, body: "<html>Unauthorized</html>" }],
    ["a JSON body that is not the envelope", { status: 401, body: { message: "Invalid API key" } }],
  ])("treats a 401 with %s as unauthorized, without retrying", async (_, reply) => {
    const h = await harness([reply as Reply]);
    const error = await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as Error).message).toContain("ods_test_…cdef");
    expect(h.stub.requests).toHaveLength(1);
    expectNoKey(error);
  });

  it("treats a proxy's HTML 502 as a server error and retries it", async () => {
    const h = await harness([
      {
        status: 502,
        headers: { "content-type": "text/html" },
        body: "<html><h1>502 Bad Gateway</h1></html>",
      },
      success(),
    ]);
    const result = await h.client.createOrder(validOrder(), { apiKey: TEST_KEY });
    expect(result).toMatchObject({ placedEarlier: false, attempts: 2 });
  });

  it("gives up on a proxy's HTML 502 after the configured attempts", async () => {
    const h = await harness([{ status: 502, body: "<html>Bad Gateway</html>" }], {
      retry: { maxAttempts: 2 },
    });
    const error = (await rejection(
      h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
    )) as SupplierUnavailableError;
    expect(error.cause).toBeInstanceOf(SupplierServerError);
    expect((error.cause as SupplierServerError).httpStatus).toBe(502);
    expect(h.stub.requests).toHaveLength(2);
  });

  it("times out a silent supplier per attempt and reports it unavailable", async () => {
    const h = await harness(["hang"], { timeoutMs: 150, retry: { maxAttempts: 2 } });
    const started = performance.now();
    const error = (await rejection(
      h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
    )) as SupplierUnavailableError;
    expect(error).toBeInstanceOf(SupplierUnavailableError);
    expect((error.cause as SupplierUnavailableError).reason).toBe("timeout");
    expect(h.stub.requests).toHaveLength(2);
    // The supplier never answers: any bound shows the attempts ended; a generous one holds on a busy machine.
    expect(performance.now() - started).toBeLessThan(10_000);
    expectNoKey(error);
  });

  it("retries a connection reset", async () => {
    const h = await harness(["reset", success()]);
    const result = await h.client.createOrder(validOrder(), { apiKey: TEST_KEY });
    expect(result).toMatchObject({ placedEarlier: false, attempts: 2 });
  });

  it("reports a supplier that refuses connections as unavailable", async () => {
    const h = await harness([success()]);
    const { baseUrl } = h.stub;
    await h.stub.close();
    stub = undefined;
    const client = new SupplierClient({ baseUrl, environment: "test", dispatcher, sleep: async () => {} });
    const error = (await rejection(
      client.createOrder(validOrder(), { apiKey: TEST_KEY }),
    )) as SupplierUnavailableError;
    expect(error).toBeInstanceOf(SupplierUnavailableError);
    expect((error.cause as SupplierUnavailableError).reason).toBe("network");
    expectNoKey(error);
  });

  it("honours Retry-After on a 429", async () => {
    const h = await harness([{ status: 429, headers: { "retry-after": "2" } }, success()]);
    const result = await h.client.createOrder(validOrder(), { apiKey: TEST_KEY });
    expect(result.attempts).toBe(2);
    expect(h.sleeps).toEqual([2_000]);
  });

  it("stops when Retry-After is longer than we wait, and says how long", async () => {
    const h = await harness([{ status: 429, headers: { "retry-after": "120" } }]);
    const error = (await rejection(
      h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
    )) as SupplierUnavailableError;
    expect(error).toMatchObject({ reason: "retry_after_too_long", retryAfterMs: 120_000 });
    expect(error.cause).toBeInstanceOf(RateLimitedError);
    expect(h.stub.requests).toHaveLength(1);
  });

  it("reports placed-earlier when a retry after an uncertain attempt answers DUPLICATE_ORDER", async () => {
    const h = await harness(["reset", failure(409, "DUPLICATE_ORDER", "Order PO-2025-0001 already exists")]);
    const result = await h.client.createOrder(validOrder(), { apiKey: TEST_KEY });
    expect(result).toEqual({
      placedEarlier: true,
      correlationId: null,
      externalDocumentNumber: "PO-2025-0001",
      attempts: 2,
    });
  });

  it("reports placed-earlier after a server error then DUPLICATE_ORDER", async () => {
    const h = await harness([failure(500, "INTERNAL_SERVER_ERROR"), failure(409, "DUPLICATE_ORDER")]);
    expect((await h.client.createOrder(validOrder(), { apiKey: TEST_KEY })).placedEarlier).toBe(true);
  });

  it("keeps DUPLICATE_ORDER a failure when the earlier attempt was only rate limited", async () => {
    const h = await harness([
      { status: 429, headers: { "retry-after": "0" } },
      failure(409, "DUPLICATE_ORDER"),
    ]);
    expect(await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }))).toBeInstanceOf(
      DuplicateOrderError,
    );
  });

  it.each([
    [400, "VALIDATION_FAILED"],
    [409, "DUPLICATE_ORDER"],
    [400, "INVALID_PAYLOAD"],
  ])("never retries a %i %s", async (status, code) => {
    const h = await harness([
      failure(status, code, "no", code === "VALIDATION_FAILED" ? { OrderLines: ["x"] } : null),
      success(),
    ]);
    await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }));
    expect(h.stub.requests).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
  });

  it("reports a body that is not the envelope as a protocol error, with the key scrubbed from the excerpt", async () => {
    const h = await harness([{ status: 200, body: `{"echo":"X-Api-Key: ${TEST_KEY}"}` }]);
    const error = (await rejection(
      h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
    )) as ProtocolError;
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.bodyExcerpt).toContain("ods_test_…cdef");
    expect(h.stub.requests).toHaveLength(1);
    expectNoKey(error);
  });

  it("points at the base URL when the endpoint is not found", async () => {
    const h = await harness([{ status: 404, body: "Not Found" }]);
    const error = (await rejection(
      h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
    )) as ProtocolError;
    expect(error).toMatchObject({ code: "PROTOCOL_ERROR", httpStatus: 404 });
    expect(error.message).toMatch(/base URL/);
  });

  it("does not accept a success envelope on a non-2xx status", async () => {
    const h = await harness([{ ...(success() as { status: number; body: object }), status: 302 }]);
    expect(await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }))).toBeInstanceOf(
      ProtocolError,
    );
  });

  it("reports an unknown error code on a 4xx as a protocol error", async () => {
    const h = await harness([failure(418, "TEAPOT")]);
    expect(await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }))).toBeInstanceOf(
      ProtocolError,
    );
  });

  describe("before any request", () => {
    it("refuses a live key for a test base URL, and a test key for live", async () => {
      const h = await harness([success()]);
      expect(await rejection(h.client.createOrder(validOrder(), { apiKey: LIVE_KEY }))).toBeInstanceOf(
        KeyEnvironmentMismatchError,
      );
      const live = new SupplierClient({ baseUrl: h.stub.baseUrl, environment: "live", dispatcher });
      expect(await rejection(live.createOrder(validOrder(), { apiKey: TEST_KEY }))).toBeInstanceOf(
        KeyEnvironmentMismatchError,
      );
      expect(h.stub.requests).toHaveLength(0);
    });

    it("refuses a malformed key without echoing it", async () => {
      const h = await harness([success()]);
      const error = await rejection(h.client.createOrder(validOrder(), { apiKey: `${TEST_KEY} ` }));
      expect(error).toBeInstanceOf(MalformedApiKeyError);
      expectNoKey(error);
      expect(h.stub.requests).toHaveLength(0);
    });

    it("refuses an order that breaks the supplier's rules, listing every field", async () => {
      const h = await harness([success()]);
      const order = validOrder({ invoice: { id: "" }, orderLines: [] });
      const error = (await rejection(
        h.client.createOrder(order, { apiKey: TEST_KEY }),
      )) as LocalValidationError;
      expect(error).toBeInstanceOf(LocalValidationError);
      expect(Object.keys(error.details).sort()).toEqual(["Invoice.Id", "OrderLines"]);
      expect(h.stub.requests).toHaveLength(0);
    });

    it("refuses a body over 1 MiB", async () => {
      const h = await harness([success()]);
      const comments = "x".repeat(5_000);
      const order = validOrder({
        orderLines: Array.from({ length: 250 }, (_, i) => ({ itemNumber: `I${i}`, quantity: 1, comments })),
      });
      const error = (await rejection(
        h.client.createOrder(order, { apiKey: TEST_KEY }),
      )) as LocalValidationError;
      expect(Object.keys(error.details)).toEqual(["Request"]);
      expect(h.stub.requests).toHaveLength(0);
    });
  });

  it("stops when the caller aborts, with the caller's reason", async () => {
    const h = await harness(["hang"], { timeoutMs: 5_000 });
    const controller = new AbortController();
    const pending = rejection(
      h.client.createOrder(validOrder(), { apiKey: TEST_KEY, signal: controller.signal }),
    );
    setTimeout(() => controller.abort(new Error("shutting down")), 50);
    expect(((await pending) as Error).message).toBe("shutting down");
    expect(h.stub.requests).toHaveLength(1);
  });

  describe("scrubs the key out of everything the supplier sends back", () => {
    const echo = `bad request: X-Api-Key ${TEST_KEY} refused`;

    it("an INTERNAL_SERVER_ERROR message echoing the key, through to the retries-exhausted error", async () => {
      const h = await harness([failure(500, "INTERNAL_SERVER_ERROR", echo)]);
      const error = (await rejection(
        h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
      )) as SupplierUnavailableError;
      expect(error).toMatchObject({ reason: "retries_exhausted", attempts: 3 });
      expect(error.cause).toBeInstanceOf(SupplierServerError);
      expect(error.message).toContain("X-Api-Key ods_test_…cdef refused");
      expect((error.cause as Error).message).toContain("X-Api-Key ods_test_…cdef refused");
      expectKeyScrubbed(error);
      expect(h.logs.join("")).not.toContain(TEST_KEY);
    });

    it("a VALIDATION_FAILED message and details (paths and messages) echoing the key", async () => {
      const h = await harness([
        failure(400, "VALIDATION_FAILED", echo, {
          "Invoice.Id": [`'Invoice Id' must not be empty (key ${TEST_KEY}).`, "second"],
          [`Headers.${TEST_KEY}`]: ["unexpected header"],
        }),
      ]);
      const error = (await rejection(
        h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
      )) as SupplierValidationError;
      expect(error).toBeInstanceOf(SupplierValidationError);
      expect(error.details).toEqual({
        "Invoice.Id": ["'Invoice Id' must not be empty (key ods_test_…cdef).", "second"],
        "Headers.ods_test_…cdef": ["unexpected header"],
      });
      expect(error.message).toContain("ods_test_…cdef");
      expectKeyScrubbed(error);
    });

    it("a DUPLICATE_ORDER message echoing the key", async () => {
      const h = await harness([failure(409, "DUPLICATE_ORDER", echo)]);
      const error = await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }));
      expect(error).toBeInstanceOf(DuplicateOrderError);
      expectKeyScrubbed(error);
    });

    it("an INVALID_PAYLOAD message echoing the key", async () => {
      const h = await harness([failure(400, "INVALID_PAYLOAD", echo)]);
      const error = await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }));
      expect(error).toBeInstanceOf(InvalidPayloadError);
      expect((error as Error).message).toContain("ods_test_…cdef");
      expectKeyScrubbed(error);
    });
  });

  describe("one hard deadline per attempt: connection, headers and body", () => {
    const envelope = JSON.stringify((success() as { body: object }).body);

    it.each([
      ["chunked", false],
      ["with a Content-Length", true],
    ])("times out a body dripping 1 byte every 50 ms (%s)", async (_, contentLength) => {
      const h = await harness([{ drip: envelope, everyMs: 50, contentLength }], {
        timeoutMs: 300,
        retry: { maxAttempts: 2 },
      });
      const started = performance.now();
      const error = (await rejection(
        h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
      )) as SupplierUnavailableError;
      const elapsed = performance.now() - started;
      expect(error).toMatchObject({ reason: "retries_exhausted", attempts: 2 });
      const cause = error.cause as SupplierUnavailableError;
      expect(cause).toMatchObject({ reason: "timeout" });
      expect(cause.message).toContain("while reading the body");
      expect(h.stub.requests).toHaveLength(2);
      expect(elapsed).toBeGreaterThanOrEqual(2 * 290);
      // One whole dripped body would take envelope.length × 50 ms; each attempt ended long before.
      expect(elapsed).toBeLessThan((envelope.length * 50) / 2);
      expectNoKey(error);
    });

    it("times out a supplier that never answers, and counts the attempt as maybe processed", async () => {
      const h = await harness(["hang", failure(409, "DUPLICATE_ORDER")], { timeoutMs: 300 });
      const started = performance.now();
      const result = await h.client.createOrder(validOrder(), { apiKey: TEST_KEY });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(result).toMatchObject({ placedEarlier: true, attempts: 2 });
      expect(h.logs.join("")).toContain("SUPPLIER_UNAVAILABLE");
    });

    it("times out a connection that takes longer than the limit to open", async () => {
      const slow = slowConnectAgent(3_000);
      try {
        const h = await harness([success()], { dispatcher: slow, timeoutMs: 300, retry: { maxAttempts: 1 } });
        const started = performance.now();
        const error = (await rejection(
          h.client.createOrder(validOrder(), { apiKey: TEST_KEY }),
        )) as SupplierUnavailableError;
        // Before the connection would have opened.
        expect(performance.now() - started).toBeLessThan(3_000);
        expect((error.cause as SupplierUnavailableError).reason).toBe("timeout");
        expect((error.cause as SupplierUnavailableError).message).not.toContain("while reading the body");
        expect(h.stub.requests).toHaveLength(0);
      } finally {
        await slow.destroy();
      }
    });

    it("still places an order that completes within the limit over a slow connection", async () => {
      const slow = slowConnectAgent(100);
      try {
        const h = await harness([success()], { dispatcher: slow, timeoutMs: 1_000 });
        expect(await h.client.createOrder(validOrder(), { apiKey: TEST_KEY })).toMatchObject({ attempts: 1 });
      } finally {
        await slow.close();
      }
    });

    it("rethrows the caller's reason when the caller aborts while the body drips", async () => {
      const h = await harness([{ drip: envelope, everyMs: 50 }], { timeoutMs: 5_000 });
      const controller = new AbortController();
      const started = performance.now();
      const pending = rejection(
        h.client.createOrder(validOrder(), { apiKey: TEST_KEY, signal: controller.signal }),
      );
      setTimeout(() => controller.abort(new Error("shutting down")), 200);
      expect(((await pending) as Error).message).toBe("shutting down");
      // Before the attempt's own 5 s deadline.
      expect(performance.now() - started).toBeLessThan(4_000);
      expect(h.stub.requests).toHaveLength(1);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    });

    it("rethrows the caller's reason when the caller aborts while the connection opens", async () => {
      const slow = slowConnectAgent(3_000);
      try {
        const h = await harness([success()], { dispatcher: slow, timeoutMs: 5_000 });
        const controller = new AbortController();
        const reason = new Error("user cancelled");
        const started = performance.now();
        const pending = rejection(
          h.client.createOrder(validOrder(), { apiKey: TEST_KEY, signal: controller.signal }),
        );
        setTimeout(() => controller.abort(reason), 100);
        expect(await pending).toBe(reason);
        // Before the connection would have opened.
        expect(performance.now() - started).toBeLessThan(3_000);
      } finally {
        await slow.destroy();
      }
    });

    it("leaves no listener on the caller's signal, whatever the outcome", async () => {
      const h = await harness([success(), "hang"], { timeoutMs: 200, retry: { maxAttempts: 1 } });
      const controller = new AbortController();
      await h.client.createOrder(validOrder(), { apiKey: TEST_KEY, signal: controller.signal });
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
      await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY, signal: controller.signal }));
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    });
  });

  it("never writes the key to an error or a log line, whatever the outcome", async () => {
    const h = await harness(
      ["reset", { status: 502, body: "bad gateway" }, failure(500, "INTERNAL_SERVER_ERROR"), { status: 401 }],
      { retry: { maxAttempts: 4 } },
    );
    const error = await rejection(h.client.createOrder(validOrder(), { apiKey: TEST_KEY }));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expectNoKey(error);
    expect(h.logs.length).toBeGreaterThan(2);
    expect(h.logs.join("")).not.toContain(TEST_KEY);
    expect(h.logs.join("")).toContain("ods_test_…cdef");
  });
});
