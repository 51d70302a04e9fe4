/**
 * `order-desk events check` and `events reprocess`: a sample body and its headers run through the customer file's
 * signing and mapping (the alt dialect's example mapping, in a file the customer file names), and the unreadable
 * deliveries of a store read again.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHeaderFile, runEvents } from "../../src/cli/events.ts";
import type { OperationsIo } from "../../src/cli/operations.ts";
import { loadCustomerConfig } from "../../src/config/customer.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { describeShape, hashBody } from "../../src/supplier/event-mapping.ts";
import { signDelivery } from "../../src/supplier/webhook-signing.ts";
import { keepUnreadable } from "../../src/webhooks/unreadable.ts";
import { openTestStore } from "../helpers/db.ts";

function capture(): OperationsIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d) => (out += d));
  return { stdout, stderr: { write: (chunk: string) => (err += chunk) }, out: () => out, err: () => err };
}

const SECRET = "alt-dialect-shared-secret-0123456789";
const NOW_SECONDS = Math.floor(Date.UTC(2026, 10, 24, 9, 30) / 1000);
const dir = mkdtempSync(join(tmpdir(), "order-desk-events-"));
const customerFile = join(dir, "order-desk.config.yml");
writeFileSync(
  customerFile,
  `${readFileSync("examples/order-desk.config.yml", "utf8")}\nsupplierEvents:\n  file: ${resolve("examples/supplier-events.alt.yml")}\n`,
);
const env = { ORDER_DESK_CONFIG: customerFile, WEBHOOK_SECRETS: SECRET };

function altEvent(extra: object = {}) {
  return {
    eventId: `evt_${randomUUID().replaceAll("-", "")}`,
    eventType: "SHIPMENT",
    createdAt: NOW_SECONDS * 1000,
    order: { correlationId: randomUUID(), documentNumber: "TICKET-1-1" },
    shipment: {
      parcel: { index: 1, total: 1 },
      carrier: { name: "DHL Express" },
      tracking: { code: "JD014600003SE", link: "https://track.example.com/JD014600003SE" },
      eta: "2026-11-26",
      state: "IN_TRANSIT",
      items: [{ sku: "LAPTOP-14", qty: 1 }],
    },
    ...extra,
  };
}

/** The sample and its headers as files, the way an admin saves them from the supplier's dashboard. */
async function sample(body: object, options: { secret?: string; timestamp?: number } = {}) {
  const raw = JSON.stringify(body);
  const { signing } = (await loadCustomerConfig(customerFile)).supplierEvents;
  const headers = signDelivery(signing, {
    id: String((body as { eventId?: unknown }).eventId ?? "x"),
    timestamp: options.timestamp ?? NOW_SECONDS,
    body: raw,
    secret: options.secret ?? SECRET,
  });
  const bodyFile = join(dir, `${randomUUID()}.json`);
  const headersFile = join(dir, `${randomUUID()}.headers`);
  writeFileSync(bodyFile, raw);
  // As copied from a request log: "Name: value" lines.
  writeFileSync(
    headersFile,
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\n"),
  );
  return { bodyFile, headersFile };
}

describe("order-desk events check", () => {
  it("verifies the signature, maps the body and shows what the thread would say", async () => {
    const { bodyFile, headersFile } = await sample(altEvent());
    const io = capture();
    const code = await runEvents(["check", bodyFile, "--headers", headersFile], env, io, {
      nowSeconds: () => NOW_SECONDS,
    });
    expect(io.err()).toBe("");
    expect(code).toBe(0);
    expect(io.out()).toMatch(/^Signature: valid \(hmac-sha256\)\./m);
    expect(io.out()).toMatch(/^Mapping: readable\./m);
    expect(io.out()).toContain('"type": "order.shipping_updated"');
    expect(io.out()).toContain('"status": "in_transit"');
    expect(io.out()).toMatch(/DHL Express/);
  });

  it("says which field it could not find, and where it looked", async () => {
    const body = altEvent({ order: { reference: "PO-1" } });
    const { bodyFile } = await sample(body);
    const io = capture();
    expect(await runEvents(["check", bodyFile], env, io)).toBe(1);
    expect(io.out()).toMatch(/^Mapping: cannot read it: .*order\.correlationId.*order\.documentNumber/m);
    expect(io.out()).toMatch(/order\.reference \(string\)/);
    expect(io.out()).not.toContain("PO-1");
  });

  it("tells a wrong signature, and a sample too old to be delivered now", async () => {
    const { bodyFile, headersFile } = await sample(altEvent(), {
      secret: "another-secret-of-sufficient-size",
    });
    const io = capture();
    expect(await runEvents(["check", bodyFile, "--headers", headersFile], env, io)).toBe(1);
    expect(io.out()).toMatch(/^Signature: NOT valid/m);

    const old = await sample(altEvent(), { timestamp: NOW_SECONDS - 86_400 });
    const late = capture();
    const code = await runEvents(["check", old.bodyFile, "--headers", old.headersFile], env, late, {
      nowSeconds: () => NOW_SECONDS,
    });
    expect(code).toBe(0);
    expect(late.out()).toMatch(/^Signature: valid .*refused as a replay/m);
  });

  it.each([
    [["check"], /needs the body's file/],
    [["check", "a.json", "--since", "2026-11-01"], /--since is for reprocess/],
    [["reprocess", "--since", "last week"], /is not a date/],
    [["replay"], /unknown action/],
    [["check", "a.json", "--colour"], /unknown option.*--colour/i],
  ])("refuses %j with exit 2 and says why", async (args, why) => {
    const io = capture();
    expect(await runEvents(args, env, io)).toBe(2);
    expect(io.err()).toMatch(why);
  });

  it("reads a headers file as JSON or as Name: value lines", () => {
    expect(parseHeaderFile('{"X-A": "1", "x-b": 2}')).toEqual({ "x-a": "1", "x-b": "2" });
    expect(parseHeaderFile("X-A: 1\r\nx-b: a: b\n")).toEqual({ "x-a": "1", "x-b": "a: b" });
  });
});

describe("order-desk events reprocess", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore();
  });
  afterAll(async () => {
    await store?.close();
  });

  it("refuses on the embedded store, naming the alert's Reprocess instead", async () => {
    const io = capture();
    expect(await runEvents(["reprocess"], { ORDER_DESK_CONFIG: customerFile }, io)).toBe(3);
    expect(io.err()).toMatch(/embedded store/);
  });

  it("reads again what the mapping in force can read, and reports what it cannot", async () => {
    const readable = altEvent();
    const unreadable = altEvent({ eventType: "SHIPMENT", shipment: { state: "LOST_AT_SEA" } });
    for (const body of [readable, unreadable]) {
      const raw = Buffer.from(JSON.stringify(body));
      await keepUnreadable(
        { store },
        {
          eventId: body.eventId,
          reason: "written before the mapping was corrected",
          bodyHash: hashBody(raw),
          body: raw,
          delivery: { scheme: "hmac-sha256", deliveryId: body.eventId },
          shape: describeShape(body),
          receivedAt: new Date(),
        },
      );
    }
    const io = capture();
    expect(await runEvents(["reprocess", "--since", "2026-01-01"], env, io, { store })).toBe(0);
    expect(io.out()).toMatch(/Looked at 2 unreadable deliveries: 1 now read .* 1 still unreadable/);
    expect(io.out()).toMatch(/still unreadable \(shape [0-9a-z]+\): no value at `shipment\.parcel\.index`/);
    expect(io.out()).toMatch(/1 alert closed as reprocessed/);
    expect(await getEvent(store, readable.eventId)).toMatchObject({ type: "order.shipping_updated" });
    expect(await getEvent(store, unreadable.eventId)).toBeNull();
  });
});
