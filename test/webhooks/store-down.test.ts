/**
 * The database goes away while the supplier delivers: the answer is 503 with Retry-After (so the supplier
 * retries), readiness turns red, and the redelivery after the database is back is stored and posted once.
 *
 * Runs on PostgreSQL (a TCP proxy in front of it is cut and restored); the embedded store lives inside the
 * process and cannot be down on its own.
 */

import type { AddressInfo } from "node:net";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { TEST_BACKENDS, testDatabaseUrl, uniqueSchemaName } from "../helpers/db.ts";
import {
  deliver,
  type Harness,
  ORDERS_CHANNEL,
  placeOrder,
  startHarness,
  statusEvent,
  until,
} from "./support.ts";

interface Proxy {
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

async function startProxy(databaseUrl: string): Promise<Proxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let up = true;
  const server: Server = createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxied = new URL(databaseUrl);
  proxied.hostname = "127.0.0.1";
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    url: proxied.toString(),
    cut() {
      up = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      up = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// Skipped without DATABASE_URL (see above: only a PostgreSQL server can go down on its own); CI sets it.
describe.skipIf(!TEST_BACKENDS.includes("postgres"))("webhooks while the database is down", () => {
  let proxy: Proxy;
  let store: Store;
  let h: Harness;

  beforeAll(async () => {
    proxy = await startProxy(testDatabaseUrl());
    store = await openStore({ databaseUrl: proxy.url, schema: uniqueSchemaName(), poolSize: 4 });
    h = await startHarness(store);
  });
  afterAll(async () => {
    proxy?.restore();
    await h?.close();
    if (store) {
      await store.query(`DROP SCHEMA IF EXISTS ${store.schema} CASCADE`).catch(() => {});
      await store.query(`DROP SCHEMA IF EXISTS ${store.schema}_jobs CASCADE`).catch(() => {});
      await store.close();
    }
    await proxy?.close();
  });

  it("answers 503 with Retry-After, then stores and posts the redelivery once the database is back", async () => {
    const o = await placeOrder(h);
    const event = statusEvent(o.correlationId, "validated", new Date().toISOString());

    proxy.cut();
    const refused = await deliver(h.url, event);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toMatchObject({ ok: false, error: "store_unavailable" });
    const ready = await fetch(`${h.http.url}/readyz`);
    expect(ready.status).toBe(503);

    proxy.restore();
    const redelivered = await until(
      () => deliver(h.url, event),
      (res) => res.status === 200,
      "the redelivery is accepted",
    );
    expect(await redelivered.json()).toMatchObject({ ok: true, duplicate: false });
    await until(
      () => h.fake.thread(ORDERS_CHANNEL, o.ts),
      (t) => t.length === 1,
      "the reply is posted",
    );
    // Marked posted right after Slack's answer, which the fake gives before the UPDATE runs.
    await until(
      () => getEvent(store, event.id),
      (stored) => stored?.postedAt != null,
      "the event is marked posted",
    );
  });
});
