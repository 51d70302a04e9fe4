/**
 * Hostile bodies, validly signed, through the receiver configured as a customer configures it, over the real wire
 * on every store: our own format with Standard Webhooks (the default), and examples/supplier-events.alt.yml (the
 * sandbox's alt dialect mapped field by field, hmac-sha256 signing). The mapped paths meet lists where objects
 * are expected, nulls, hundreds of KB of text in a text field and in the id, nesting just under and over the
 * 64-level limit, `__proto__` and `constructor` keys, and numbers where text is expected.
 *
 * Whatever comes, a signed delivery is never answered 5xx and never lost: it is stored as an event, or kept as
 * unreadable (202) with the reason, once however often it is redelivered; only a body over a limit (nesting) is
 * refused, and then nothing of it is stored. Nothing is posted from a body that could not be read, and nothing
 * reaches Object.prototype.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { supplierEventsSchema } from "../../src/config/supplier-events.ts";
import type { Store } from "../../src/store/db.ts";
import { getEvent } from "../../src/store/repositories/events.ts";
import { compileEventMapping } from "../../src/supplier/event-mapping.ts";
import {
  STANDARD_WEBHOOKS_SIGNING,
  signDelivery,
  type WebhookSigning,
} from "../../src/supplier/webhook-signing.ts";
import type { WebhookReceiverOptions } from "../../src/webhooks/receiver.ts";
import { getTestStore, TEST_BACKENDS } from "../helpers/db.ts";
import {
  type Harness,
  ORDERS_CHANNEL,
  placeOrder,
  SECRET,
  startHarness,
  type TestOrder,
  until,
} from "./support.ts";

const ALT = supplierEventsSchema.parse(
  parse(readFileSync(new URL("../../examples/supplier-events.alt.yml", import.meta.url), "utf8")),
);
/** The alt dialect's HMAC key: any text of 16 characters or more. */
const ALT_SECRET = Buffer.alloc(24, 9).toString("hex");

/** An object nested `depth` levels deep ({} is one level). */
function nest(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;
}

/** The JSON of `value` with `key` (written as is: `__proto__` stays a key) and raw JSON text put first. */
function withRawKey(value: object, key: string, raw: string): string {
  const rest = JSON.stringify(value).slice(1);
  return `{${JSON.stringify(key)}:${raw}${rest === "}" ? "" : ","}${rest}`;
}

type Outcome = "stored" | "unreadable" | "refused" | "stored or unreadable";

interface Case {
  name: string;
  body: string;
  outcome: Outcome;
  /** What the 202's note (the kept reason) says, for an unreadable one. */
  reason?: RegExp;
}

interface Dialect {
  name: string;
  signing: WebhookSigning;
  secret: string;
  receiver: Partial<WebhookReceiverOptions>;
  /** A readable status change for the order, as this dialect writes it, with `id` its event id. */
  status(correlationId: string, id: string): Record<string, unknown>;
  /** A readable shipping update. */
  shipment(correlationId: string, id: string): Record<string, unknown>;
  /** `unread` is the order of every body that must not be read; "stored or unreadable" ones name `read`. */
  cases(unread: string, read: string): Case[];
}

const newId = () => `evt_${randomUUID().replace(/-/g, "")}`;
const HUGE = 300_000;
/** Random hex: text that does not compress, as a real value would not. */
const noise = (length: number) =>
  randomBytes(Math.ceil(length / 2))
    .toString("hex")
    .slice(0, length);

const alt: Dialect = {
  name: "examples/supplier-events.alt.yml, hmac-sha256",
  signing: ALT.signing,
  secret: ALT_SECRET,
  receiver: { signing: ALT.signing, mapper: compileEventMapping(ALT.mapping) },
  status: (correlationId, id) => ({
    eventId: id,
    eventType: "ORDER_STATUS",
    createdAt: Date.UTC(2026, 10, 24, 9, 0),
    order: { correlationId, documentNumber: "PO-HOSTILE-1" },
    status: { code: "PACKED", previous: "PICKED" },
  }),
  shipment: (correlationId, id) => ({
    eventId: id,
    eventType: "SHIPMENT",
    createdAt: Date.UTC(2026, 10, 24, 9, 5),
    order: { correlationId, documentNumber: "PO-HOSTILE-1" },
    shipment: {
      parcel: { index: 1, total: 1 },
      carrier: { name: "DHL" },
      tracking: { code: "JD014600003SE", link: "https://track.example.com/JD014600003SE" },
      eta: "2026-12-03",
      state: "IN_TRANSIT",
      items: [{ sku: "LAP-14-PRO", qty: 1 }],
    },
  }),
  cases(unread, read) {
    const s = (id = newId()) => alt.status(unread, id);
    const r = (id = newId()) => alt.status(read, id);
    const ship = (cid: string, shipment: object) => {
      const body = alt.shipment(cid, newId());
      return { ...body, shipment: { ...(body.shipment as object), ...shipment } };
    };
    const json = JSON.stringify;
    return [
      // Lists where objects are expected.
      {
        name: "the order is a list of one object",
        body: json({ ...s(), order: [{ correlationId: unread }] }),
        outcome: "unreadable",
        reason: /order\.correlationId/,
      },
      {
        name: "the status is a list",
        body: json({ ...s(), status: [{ code: "PACKED" }] }),
        outcome: "unreadable",
        reason: /status\.code/,
      },
      {
        name: "the shipment's items are an object",
        body: json(ship(unread, { items: { sku: "LAP-14-PRO", qty: 1 } })),
        outcome: "unreadable",
        reason: /shipment\.items.*not a list/,
      },
      {
        name: "a shipment line is a list",
        body: json(ship(unread, { items: [["LAP-14-PRO", 1]] })),
        outcome: "unreadable",
        reason: /line 1/,
      },
      {
        name: "the body is a list of events",
        body: json([s()]),
        outcome: "unreadable",
        reason: /list, not a JSON object/,
      },
      // Nulls.
      {
        name: "the id is null",
        body: json({ ...s(), eventId: null }),
        outcome: "unreadable",
        reason: /eventId/,
      },
      {
        name: "the order is null",
        body: json({ ...s(), order: null }),
        outcome: "unreadable",
        reason: /order\.correlationId/,
      },
      { name: "the body is null", body: "null", outcome: "unreadable", reason: /null, not a JSON object/ },
      {
        name: "the status code is null",
        body: json({ ...s(), status: { code: null } }),
        outcome: "unreadable",
        reason: /status\.code/,
      },
      {
        name: "optional values are null",
        body: json({ ...r(), status: { code: "PACKED", previous: null, note: null } }),
        outcome: "stored",
      },
      {
        name: "a shipment's optional values are null",
        body: json(
          ship(read, { eta: null, problem: null, tracking: { code: "JD1", link: null }, items: null }),
        ),
        outcome: "stored",
      },
      // Huge strings.
      {
        name: "300 KB of text in the reason",
        body: json({ ...r(), status: { code: "CANCELLED", note: noise(HUGE) } }),
        outcome: "stored or unreadable",
      },
      {
        name: "a 300 KB id",
        body: json(s(`evt_${noise(HUGE)}`)),
        outcome: "unreadable",
        reason: /eventId/,
      },
      {
        name: "a 9,000-character id (over the 500 an identifier may have, and over what an index entry holds)",
        body: json(r(`evt_${noise(9_000)}`)),
        outcome: "stored or unreadable",
      },
      {
        name: "a 9,000-character id on a body that cannot be read (a list where the status is expected)",
        body: json({ ...s(`evt_${noise(9_000)}`), status: [{ code: "PACKED" }] }),
        outcome: "unreadable",
        // The id is read first: its length is the reason given (kept under the body's hash).
        reason: /eventId.*more than the 500 accepted/,
      },
      {
        name: "300 KB of text in a field the mapping does not read",
        body: json({ ...r(), comment: noise(HUGE) }),
        outcome: "stored",
      },
      // Nesting (the body itself is one level).
      {
        name: "nesting 64 levels deep where nothing is mapped",
        body: withRawKey(r(), "extra", nest(63)),
        outcome: "stored",
      },
      {
        name: "nesting 65 levels deep",
        body: withRawKey(s(), "extra", nest(64)),
        outcome: "refused",
      },
      {
        name: "nesting where the correlation id is expected",
        body: json({ ...s(), order: { correlationId: JSON.parse(nest(60)) } }),
        outcome: "unreadable",
        reason: /order\.correlationId.*an object, not text/,
      },
      // __proto__ and constructor.
      {
        name: "the id and the order only under __proto__",
        body: withRawKey(
          { eventType: "ORDER_STATUS", createdAt: Date.UTC(2026, 10, 24), status: { code: "PACKED" } },
          "__proto__",
          json({ eventId: newId(), order: { correlationId: unread } }),
        ),
        outcome: "unreadable",
        reason: /eventId/,
      },
      {
        name: "the correlation id only under the order's __proto__",
        body: json({
          ...s(),
          order: JSON.parse(withRawKey({}, "__proto__", json({ correlationId: unread }))),
        }),
        outcome: "unreadable",
        reason: /order\.correlationId/,
      },
      {
        name: "a constructor.prototype beside the event",
        body: withRawKey(r(), "constructor", json({ prototype: { polluted: "yes" } })),
        outcome: "stored",
      },
      {
        name: "the status code is constructor",
        body: json({ ...s(), status: { code: "constructor" } }),
        outcome: "unreadable",
        reason: /not a status we know/,
      },
      {
        name: "the status code is __proto__",
        body: json({ ...s(), status: { code: "__proto__" } }),
        outcome: "unreadable",
        reason: /not a status we know/,
      },
      {
        name: "the event type is __proto__ (a type the mapping does not name: kept as a generic event)",
        body: json({ ...r(), eventType: "__proto__" }),
        outcome: "stored",
      },
      // Numbers where text is expected.
      {
        name: "the id is a number",
        body: json(r(String(Date.now() * 1000 + Math.floor(Math.random() * 1000)))).replace(
          /"eventId":"(\d+)"/,
          '"eventId":$1',
        ),
        outcome: "stored",
      },
      {
        name: "the correlation id is a number",
        body: json({ ...s(), order: { correlationId: 42 } }),
        outcome: "unreadable",
        reason: /not a UUID/,
      },
      {
        name: "the status code is a number",
        body: json({ ...s(), status: { code: 7 } }),
        outcome: "unreadable",
        reason: /not a status we know/,
      },
      {
        name: "the carrier is a number",
        body: json(ship(read, { carrier: { name: 17 } })),
        outcome: "stored",
      },
      {
        name: "the time is text of digits",
        body: json({ ...r(), createdAt: String(Date.UTC(2026, 10, 24, 9)) }),
        outcome: "stored",
      },
      {
        name: "the time is true",
        body: json({ ...s(), createdAt: true }),
        outcome: "unreadable",
        reason: /createdAt/,
      },
      {
        name: "the parcel number is 1.5",
        body: json(ship(unread, { parcel: { index: 1.5, total: 2 } })),
        outcome: "unreadable",
        reason: /not a whole number/,
      },
      {
        name: "a quantity too large for a number",
        body: json(ship(unread, { items: [{ sku: "LAP", qty: 1 }] })).replace('"qty":1', '"qty":1e400'),
        outcome: "unreadable",
        reason: /not a whole number/,
      },
    ];
  },
};

const ours: Dialect = {
  name: "our own format, Standard Webhooks (the default)",
  signing: STANDARD_WEBHOOKS_SIGNING,
  secret: SECRET,
  receiver: {},
  status: (correlationId, id) => ({
    id,
    type: "order.status_changed",
    occurredAt: "2026-11-24T09:00:00+00:00",
    correlationId,
    data: { status: "packed", previousStatus: "picked" },
  }),
  shipment: (correlationId, id) => ({
    id,
    type: "order.shipping_updated",
    occurredAt: "2026-11-24T09:05:00+00:00",
    correlationId,
    data: {
      parcel: { number: 1, of: 1 },
      carrier: "DHL",
      trackingNumber: "JD014600003SE",
      status: "in_transit",
      lines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
    },
  }),
  cases(unread, read) {
    const s = (id = newId()) => ours.status(unread, id);
    const r = (id = newId()) => ours.status(read, id);
    const json = JSON.stringify;
    return [
      {
        name: "the data is a list",
        body: json({ ...s(), data: [{ status: "packed" }] }),
        outcome: "unreadable",
        reason: /data\.status/,
      },
      {
        name: "the lines are an object",
        body: json({
          ...ours.shipment(unread, newId()),
          data: { ...(ours.shipment(unread, "x").data as object), lines: {} },
        }),
        outcome: "unreadable",
        reason: /data\.lines/,
      },
      { name: "the id is null", body: json({ ...s(), id: null }), outcome: "unreadable", reason: /\bid\b/ },
      {
        name: "the data is null",
        body: json({ ...s(), data: null }),
        outcome: "unreadable",
        reason: /data\.status/,
      },
      {
        name: "optional values are null",
        body: json({ ...r(), externalDocumentNumber: null, data: { status: "packed", reason: null } }),
        outcome: "stored",
      },
      {
        name: "300 KB of text in the reason",
        body: json({ ...r(), data: { status: "cancelled", reason: noise(HUGE) } }),
        outcome: "stored or unreadable",
      },
      { name: "a 300 KB id", body: json(s(`evt_${noise(HUGE)}`)), outcome: "unreadable", reason: /\bid\b/ },
      {
        name: "a 9,000-character id (over the 500 an identifier may have, and over what an index entry holds)",
        body: json(r(`evt_${noise(9_000)}`)),
        outcome: "stored or unreadable",
      },
      {
        name: "nesting 64 levels deep in the data",
        body: json({ ...r(), data: { status: "packed", extra: JSON.parse(nest(62)) } }),
        outcome: "stored",
      },
      { name: "nesting 65 levels deep", body: withRawKey(s(), "extra", nest(64)), outcome: "refused" },
      {
        name: "the id and correlation id only under __proto__",
        body: withRawKey(
          { type: "order.status_changed", occurredAt: "2026-11-24T09:00:00Z", data: { status: "packed" } },
          "__proto__",
          json({ id: newId(), correlationId: unread }),
        ),
        outcome: "unreadable",
        reason: /\bid\b/,
      },
      {
        name: "the status is constructor",
        body: json({ ...s(), data: { status: "constructor" } }),
        outcome: "unreadable",
        reason: /not a status we know/,
      },
      {
        name: "a constructor.prototype in the data",
        body: json({
          ...r(),
          data: JSON.parse(
            withRawKey({ status: "packed" }, "constructor", json({ prototype: { polluted: "yes" } })),
          ),
        }),
        outcome: "stored",
      },
      {
        name: "the correlation id is a number",
        body: json({ ...s(), correlationId: 42 }),
        outcome: "unreadable",
        reason: /not a UUID/,
      },
      {
        name: "the time is a number of seconds",
        body: json({ ...r(), occurredAt: Date.UTC(2026, 10, 24, 9) / 1000 }),
        outcome: "stored",
      },
    ];
  },
};

describe.each(TEST_BACKENDS)("hostile signed bodies (%s)", (backend) => {
  describe.each([ours, alt])("through $name", (dialect) => {
    let store: Store;
    let h: Harness;
    let unread: TestOrder;
    let read: TestOrder;

    beforeAll(async () => {
      store = await getTestStore(backend);
      h = await startHarness(store, { secrets: () => [dialect.secret], receiver: dialect.receiver });
      unread = await placeOrder(h);
      read = await placeOrder(h);
    });
    afterAll(async () => {
      await h?.close();
    });

    async function send(body: string): Promise<{ status: number; answer: Record<string, unknown> }> {
      const headers = signDelivery(dialect.signing, {
        id: `msg_${randomUUID()}`,
        timestamp: Math.floor(Date.now() / 1000),
        body,
        secret: dialect.secret,
      });
      const res = await fetch(h.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      return { status: res.status, answer: (await res.json()) as Record<string, unknown> };
    }

    async function kept(key: string): Promise<{ reason: string; body: Buffer } | undefined> {
      const { rows } = await store.query<{ reason: string; body: Buffer | Uint8Array }>(
        "SELECT reason, body FROM unreadable_events WHERE id = $1",
        [key],
      );
      const row = rows[0];
      return row && { reason: row.reason, body: Buffer.from(row.body) };
    }

    async function counts(): Promise<{ events: number; unreadable: number }> {
      const { rows } = await store.query<{ events: number; unreadable: number }>(
        `SELECT (SELECT count(*)::int FROM supplier_events) AS events,
                (SELECT count(*)::int FROM unreadable_events) AS unreadable`,
      );
      return rows[0] as { events: number; unreadable: number };
    }

    it("stores each as an event or keeps it as unreadable with its reason, once, never a 5xx; refuses only what is over a limit, storing nothing of it", async () => {
      const problems: string[] = [];
      const storedIds: string[] = [];
      for (const c of dialect.cases(unread.correlationId, read.correlationId)) {
        const before = await counts();
        const first = await send(c.body);
        const again = await send(c.body);
        const after = await counts();
        const what = `${c.name}: answered ${first.status} ${JSON.stringify(first.answer).slice(0, 300)}, then ${again.status}`;
        if (first.status >= 500 || again.status >= 500) {
          problems.push(`${what} (a 5xx: the supplier would retry it forever)`);
          continue;
        }
        if (c.outcome === "refused") {
          if (first.status !== 400 || first.answer.error !== "invalid_event")
            problems.push(`${what}, not 400 invalid_event`);
          if (after.events !== before.events || after.unreadable !== before.unreadable) {
            problems.push(`${c.name}: refused, yet something of it was stored`);
          }
          continue;
        }
        const readable = first.answer.readable !== false;
        if (readable) {
          const id = String(first.answer.id);
          const event = await getEvent(store, id);
          if (c.outcome === "unreadable" || first.status !== 200 || event === null) {
            problems.push(
              `${what}: expected ${c.outcome}, got a stored event ${event ? "" : "(but no row) "}`,
            );
            continue;
          }
          if (event.rawBody === null || Buffer.from(event.rawBody).toString("utf8") !== c.body) {
            problems.push(`${c.name}: the event is stored without its body as it came`);
          }
          if (again.status !== 200 || again.answer.duplicate !== true)
            problems.push(`${what}: the redelivery is not a duplicate`);
          if (after.events !== before.events + 1 || after.unreadable !== before.unreadable) {
            problems.push(
              `${c.name}: stored ${after.events - before.events} events and ${after.unreadable - before.unreadable} unreadable, not one event`,
            );
          }
          storedIds.push(id);
          continue;
        }
        if (c.outcome === "stored" || first.status !== 202) {
          problems.push(`${what}: expected ${c.outcome}, got kept as unreadable`);
          continue;
        }
        const note = String(first.answer.note);
        if (c.reason && !c.reason.test(note))
          problems.push(`${c.name}: the reason "${note.slice(0, 200)}" does not match ${c.reason}`);
        const key =
          typeof first.answer.id === "string"
            ? `id:${first.answer.id}`
            : `sha256:${createHash("sha256").update(c.body).digest("hex")}`;
        const row = await kept(key);
        if (!row) problems.push(`${c.name}: answered 202 but not kept under ${key.slice(0, 80)}`);
        else {
          if (!note.endsWith(row.reason)) problems.push(`${c.name}: kept with another reason than answered`);
          if (row.body.toString("utf8") !== c.body)
            problems.push(`${c.name}: kept without its body as it came`);
        }
        if (again.status !== 200 || again.answer.duplicate !== true || again.answer.readable !== false) {
          problems.push(`${what}: the redelivery is not a duplicate of the unreadable one`);
        }
        if (after.unreadable !== before.unreadable + 1 || after.events !== before.events) {
          problems.push(
            `${c.name}: kept ${after.unreadable - before.unreadable} unreadable and ${after.events - before.events} events, not one unreadable`,
          );
        }
      }
      expect(problems).toEqual([]);
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();

      // The readable ones are posted in their order's thread; nothing of what could not be read is stored as an
      // event or posted.
      await until(
        () => Promise.all(storedIds.map((id) => getEvent(store, id))),
        (events) => events.every((e) => e?.postedAt),
        "the stored events handled by the worker",
      );
      const { rows } = await store.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM supplier_events WHERE correlation_id = $1",
        [unread.correlationId],
      );
      expect(rows[0]?.n).toBe(0);
      expect(h.fake.thread(ORDERS_CHANNEL, unread.ts)).toEqual([]);
      expect(h.fake.thread(ORDERS_CHANNEL, read.ts).length).toBeGreaterThan(0);
    });
  });
});
