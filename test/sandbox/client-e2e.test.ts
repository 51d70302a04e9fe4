/**
 * End to end: our SupplierClient and `order-desk place` against the sandbox over real HTTP, including the
 * uncertain cases the faults create (a reset after placing, an outage), and the sandbox's webhooks verified
 * by our own verifier and parsed by our own event contract.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runPlace } from "../../src/cli/place.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { SupplierClient } from "../../src/supplier/client.ts";
import {
  DuplicateOrderError,
  SupplierUnavailableError,
  UnauthorizedError,
} from "../../src/supplier/errors.ts";
import { parseSupplierEvent } from "../../src/supplier/events.ts";
import { verifyWebhook } from "../../src/supplier/webhook-signature.ts";
import { dispatcher, KEY, type Receiver, SECRET, startReceiver, validOrder, waitFor } from "./support.ts";

let sandbox: SandboxHandle;
let receiver: Receiver;
let dir: string;

beforeAll(async () => {
  receiver = await startReceiver(() => 200);
  sandbox = await startSandbox({
    apiKeys: [KEY],
    webhookUrl: receiver.url,
    webhookSecret: SECRET,
    speed: 60_000,
    seed: 11,
  });
  dir = await mkdtemp(join(tmpdir(), "order-desk-sandbox-place-"));
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
  await dispatcher.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  sandbox.setFaults({ failRate: 0, outage: false, resetConnections: false, resetAfterPlacing: false });
});

function client(options: Partial<ConstructorParameters<typeof SupplierClient>[0]> = {}): SupplierClient {
  return new SupplierClient({
    baseUrl: sandbox.url,
    environment: "test",
    dispatcher,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
}

describe("SupplierClient against the sandbox", () => {
  it("places an order, and the sandbox's signed events reach a receiver our verifier and contract accept", async () => {
    const result = await client().createOrder(validOrder(), { apiKey: KEY });
    expect(result.placedEarlier).toBe(false);
    if (result.placedEarlier) return;
    const order = await waitFor(async () => {
      const o = await sandbox.order(result.correlationId);
      return o?.status === "delivered" && o.events.every((e) => e.delivery.state === "delivered") && o;
    });
    const mine = receiver.received.filter((r) => JSON.parse(r.body).correlationId === result.correlationId);
    expect(mine).toHaveLength(order.eventsPlanned);
    for (const delivery of mine) {
      const verified = verifyWebhook({
        headers: delivery.headers,
        rawBody: delivery.body,
        secrets: [SECRET],
        nowSeconds: Math.floor(Date.now() / 1000),
      });
      const parsed = parseSupplierEvent(JSON.parse(delivery.body));
      expect(parsed.kind).not.toBe("unknown");
      expect(parsed.event.id).toBe(verified.id);
      expect(parsed.event.externalDocumentNumber).toBe(result.externalDocumentNumber);
    }
  });

  it("gets DuplicateOrderError for a number already placed", async () => {
    const order = validOrder();
    await client().createOrder(order, { apiKey: KEY });
    const error = await client()
      .createOrder(order, { apiKey: KEY })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateOrderError);
    expect((error as DuplicateOrderError).externalDocumentNumber).toBe(order.externalDocumentNumber);
  });

  it("gets UnauthorizedError for a test key the sandbox does not know", async () => {
    const error = await client()
      .createOrder(validOrder(), { apiKey: "ods_test_99999999999999999999999999999999" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
  });

  it("resolves placedEarlier when the first attempt placed the order but its connection was reset", async () => {
    sandbox.setFaults({ resetAfterPlacing: true });
    const order = validOrder();
    const result = await client({
      sleep: async () => {
        sandbox.setFaults({ resetAfterPlacing: false });
      },
    }).createOrder(order, { apiKey: KEY });
    expect(result).toMatchObject({ placedEarlier: true, correlationId: null, attempts: 2 });
    const held = await sandbox.orders({ limit: 1000 });
    expect(held.filter((o) => o.externalDocumentNumber === order.externalDocumentNumber)).toHaveLength(1);
  });

  it("retries through an outage and places the order once", async () => {
    sandbox.setFaults({ outage: true });
    const result = await client({
      sleep: async () => {
        sandbox.setFaults({ outage: false });
      },
    }).createOrder(validOrder(), { apiKey: KEY });
    expect(result).toMatchObject({ placedEarlier: false, attempts: 2 });
  });

  it("gives up with SupplierUnavailableError when every attempt is answered INTERNAL_SERVER_ERROR", async () => {
    sandbox.setFaults({ failRate: 1 });
    const error = await client()
      .createOrder(validOrder(), { apiKey: KEY })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SupplierUnavailableError);
    expect((error as SupplierUnavailableError).reason).toBe("retries_exhausted");
  });
});

describe("order-desk place against the sandbox", () => {
  async function place(order: unknown, key = KEY) {
    const file = join(dir, `order-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(order));
    const out: string[] = [];
    const code = await runPlace(
      ["--file", file],
      { SUPPLIER_BASE_URL: sandbox.url, SUPPLIER_ENVIRONMENT: "test", SUPPLIER_API_KEY: key },
      { stdout: { write: (c: string) => out.push(c) }, stderr: { write: () => {} } },
      { dispatcher, retry: { baseDelayMs: 1, maxDelayMs: 5 } },
    );
    return { code, output: JSON.parse(out.join("").trim()) };
  }

  it("places an order and prints its correlationId, which the sandbox holds", async () => {
    const order = validOrder();
    const { code, output } = await place(order);
    expect(code).toBe(0);
    expect(output).toMatchObject({ ok: true, externalDocumentNumber: order.externalDocumentNumber });
    expect((await sandbox.order(output.correlationId))?.externalDocumentNumber).toBe(
      order.externalDocumentNumber,
    );
  });

  it("exits 2 with DUPLICATE_ORDER when the number is taken", async () => {
    const order = validOrder();
    expect((await place(order)).code).toBe(0);
    const { code, output } = await place(order);
    expect(code).toBe(2);
    expect(output).toMatchObject({ ok: false, code: "DUPLICATE_ORDER" });
  });
});
