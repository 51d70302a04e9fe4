/**
 * The sandbox on the project store: orders, duplicate detection, unfinished fulfilment and pending deliveries
 * survive a restart on the same data directory (`--data-dir`); a store failure is answered INTERNAL_SERVER_ERROR.
 */
import { EventEmitter } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSandboxCommand } from "../../src/cli/sandbox.ts";
import { ALT_DIALECT_SIGNING } from "../../src/sandbox/dialect.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { openStore } from "../../src/store/db.ts";
import { verifyDelivery } from "../../src/supplier/webhook-signing.ts";
import { getTestStore, openTestStore, pgliteTemplate } from "../helpers/db.ts";
import { createOrder, dispatcher, KEY, SECRET, startReceiver, validOrder, waitFor } from "./support.ts";

const FAST = 60_000;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "order-desk-sandbox-"));
});
afterAll(async () => {
  await dispatcher.close();
  await rm(dir, { recursive: true, force: true });
});

describe("sandbox on the project store", () => {
  it("keeps orders, duplicates, fulfilment and pending deliveries across a restart on the same --data-dir", async () => {
    let receiverUp = false;
    const receiver = await startReceiver(() => (receiverUp ? 200 : 500));
    const dataDir = join(dir, "restart");
    // A migrated empty store from the template: creating one from scratch (initdb) would cost seconds more.
    await (await openStore({ dataDir, pgliteTemplate: await pgliteTemplate() })).close();
    try {
      // First run: realistic speed, so the order is mid-fulfilment and its first event undelivered at shutdown.
      const first = await startSandbox({
        dataDir,
        openDatabase: (d, logger) => openStore({ dataDir: d, logger }),
        apiKeys: [KEY],
        webhookUrl: receiver.url,
        webhookSecret: SECRET,
        speed: 1,
      });
      const order = validOrder();
      const placed = await createOrder(first.url, order);
      expect(placed.status).toBe(200);
      const correlationId = placed.json.data.correlationId as string;
      await waitFor(
        async () => (await first.order(correlationId))?.events[0]?.delivery.attempts.length === 1,
      );
      await first.close();

      // Second run through the command line on the same directory, fast, with the receiver up.
      receiverUp = true;
      const signals = new EventEmitter();
      let ready: (handle: SandboxHandle) => void = () => {};
      const started = new Promise<SandboxHandle>((resolve) => {
        ready = resolve;
      });
      const out: string[] = [];
      const exit = runSandboxCommand(
        [
          "--port",
          "0",
          "--data-dir",
          dataDir,
          "--api-key",
          KEY,
          "--webhook-url",
          receiver.url,
          "--webhook-secret",
          SECRET,
          "--speed",
          "60000",
        ],
        {
          stdout: { write: (chunk: string) => out.push(chunk) },
          stderr: { write: (chunk: string) => out.push(chunk) },
          signals,
          logger: pino({ level: "silent" }),
          onReady: ready,
        },
      );
      const sandbox = await started;
      try {
        expect(out.join("")).toContain(`orders in ${dataDir}`);
        const again = await createOrder(sandbox.url, order);
        expect(again.status).toBe(409);
        expect(again.json.error.code).toBe("DUPLICATE_ORDER");
        const done = await waitFor(async () => {
          const o = await sandbox.order(correlationId);
          return o?.status === "delivered" && o.events.every((e) => e.delivery.state === "delivered") && o;
        }, 8_000);
        // The event left pending continued its attempts (1 failed before the restart, 1 after).
        expect(done.events[0]?.delivery.attempts.map((a) => a.httpStatus)).toEqual([500, 200]);
        expect(done.events.map((e) => e.event.id)).toEqual([
          ...new Set(receiver.received.map((r) => r.headers["webhook-id"] as string)),
        ]);
        for (const r of receiver.received) {
          expect(() => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
        }
        expect((await sandbox.orders()).map((o) => o.correlationId)).toContain(correlationId);
      } finally {
        signals.emit("SIGTERM");
        expect(await exit).toBe(0);
      }
    } finally {
      await receiver.close();
    }
  });

  it("serves the whole flow from the shared test store (PGlite, or PostgreSQL with DATABASE_URL)", async () => {
    const store = await getTestStore();
    const receiver = await startReceiver(() => 204);
    const sandbox = await startSandbox({
      store,
      apiKeys: [KEY],
      webhookUrl: receiver.url,
      webhookSecret: SECRET,
      speed: FAST,
    });
    try {
      const order = validOrder();
      const placed = await createOrder(sandbox.url, order);
      expect(placed.status).toBe(200);
      expect((await createOrder(sandbox.url, order)).status).toBe(409);
      const id = placed.json.data.correlationId as string;
      const done = await waitFor(async () => {
        const o = await sandbox.order(id);
        return o?.status === "delivered" && o.events.every((e) => e.delivery.state === "delivered") && o;
      }, 8_000);
      expect(done.events).toHaveLength(done.eventsPlanned);
      expect(receiver.received).toHaveLength(done.eventsPlanned);
      const list = await sandbox.orders({ limit: 1 });
      expect(list[0]?.correlationId).toBe(id);
    } finally {
      await sandbox.close();
      await receiver.close();
    }
  });

  it("redelivers an alt-dialect event after a restart with the same delivery id and body", async () => {
    const store = await getTestStore();
    let receiverUp = false;
    const receiver = await startReceiver(() => (receiverUp ? 200 : 500));
    const altSecret = "alt-dialect-restart-secret";
    const options = {
      store,
      apiKeys: [KEY],
      webhookUrl: receiver.url,
      webhookSecret: altSecret,
      dialect: "alt",
    } as const;
    try {
      // Realistic speed first, so the order's first event is undelivered when the sandbox stops.
      const first = await startSandbox({ ...options, speed: 1 });
      const placed = await createOrder(
        first.url,
        validOrder({ orderLines: [{ itemNumber: "A", quantity: 1 }] }),
      );
      const correlationId = placed.json.data.correlationId as string;
      await waitFor(
        async () => (await first.order(correlationId))?.events[0]?.delivery.attempts.length === 1,
      );
      await first.close();

      receiverUp = true;
      const second = await startSandbox({ ...options, speed: FAST });
      try {
        const done = await waitFor(async () => {
          const o = await second.order(correlationId);
          return o?.status === "delivered" && o.events.every((e) => e.delivery.state === "delivered") && o;
        }, 8_000);
        const firstId = done.events[0]?.event.id;
        const ofFirst = receiver.received.filter((r) => r.headers["x-supplier-delivery"] === firstId);
        expect(ofFirst.map((r) => JSON.parse(r.body).eventId)).toEqual([firstId, firstId]);
        expect(ofFirst[1]?.body).toBe(ofFirst[0]?.body);
        for (const r of receiver.received) {
          expect(
            verifyDelivery({
              signing: ALT_DIALECT_SIGNING,
              headers: r.headers,
              rawBody: r.body,
              secrets: [altSecret],
              nowSeconds: Math.floor(Date.now() / 1000),
            }).deliveryId,
          ).toBe(JSON.parse(r.body).eventId);
        }
      } finally {
        await second.close();
      }
    } finally {
      await receiver.close();
    }
  });

  it("answers INTERNAL_SERVER_ERROR without internals when its store fails", async () => {
    const store = await openTestStore();
    const sandbox = await startSandbox({ store, apiKeys: [KEY] });
    try {
      await store.close();
      const answer = await createOrder(sandbox.url, validOrder());
      expect(answer.status).toBe(500);
      expect(answer.json).toMatchObject({
        success: false,
        data: null,
        error: { code: "INTERNAL_SERVER_ERROR" },
      });
      expect(answer.json.error.message).toBe("An unexpected error occurred. Please try again later.");
      expect(answer.text).not.toMatch(/Store|closed|\.ts:/);
    } finally {
      await sandbox.close();
    }
  });
});
