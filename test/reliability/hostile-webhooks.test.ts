/**
 * Hostile input on `POST /webhooks/supplier`: fast-check throws raw bodies and headers at the real HTTP server —
 * malformed JSON, wrong types, huge and deeply nested values, unicode (lone surrogates, NUL), `__proto__` and
 * `constructor` keys — validly signed or not. Never a crash or a 5xx; a refusal is a 4xx saying why in JSON;
 * nothing is stored from a refused delivery; nothing pollutes Object.prototype. Then the signature rules one by
 * one: missing, wrong, an old secret after rotation, stale and future timestamps, replayed ids. Last, an orphan
 * flood (hundreds of signed events for correlation ids no order has, within a minute): each sweep sends the admin
 * channel at most one alert, and a real failed order stays in an admin's "Needs attention".
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateWebhookSecret, signWebhook } from "../../src/supplier/webhook-signature.ts";
import { createOrphanSweeper } from "../../src/webhooks/orphans.ts";
import { SlackUser } from "../../tools/fake-slack/index.ts";
import { FUZZ_SEED, fuzzBudget } from "./harness/fuzz-budget.ts";
import { type InProcessDesk, startInProcessDesk, watchForCrashes } from "./harness/in-process.ts";
import { scanFile } from "./harness/logs.ts";
import { record } from "./harness/results.ts";
import { orderForm, slackRequests } from "./harness/slack-driver.ts";
import { ADMIN_CHANNEL, AGENT, CHANNELS, startWorld, type World } from "./harness/world.ts";

const RUNS = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 10_000);
const SEED = FUZZ_SEED;
const FUZZ = fuzzBudget(RUNS, 100, 80_000);
const PATH = "/webhooks/supplier";
/** Unknown correlation ids in the orphan flood (the issue's bar: at least 200 within a minute). */
const FLOOD = 220;
/** The reliability customer file's admin. */
const ADMIN_USER = "U0RELADMIN";

interface Delivery {
  kind: string;
  body: string | Buffer;
  headers: Record<string, string>;
  /**
   * Validly signed with a current secret, fresh: only these may be accepted, and each of them is (kept as an event,
   * or as unreadable when the mapping cannot read it), unless the body is over a limit (nesting).
   */
  genuine: boolean;
  /** The body's own id, if it has one: what an event read from it is stored (deduplicated) by. */
  bodyId: string | undefined;
}

const nowSec = () => Math.floor(Date.now() / 1000);

// ---- bodies ---------------------------------------------------------------------------------------------

const isoDate = fc
  .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
  .map((d) => d.toISOString());
const eventId = fc.oneof(
  fc.uuid().map((u) => `evt_${u.replace(/-/g, "").slice(0, 24)}`),
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.string({ unit: "binary", minLength: 1, maxLength: 20 }),
);
const status = fc.constantFrom(
  "received",
  "validated",
  "in_fulfilment",
  "picked",
  "packed",
  "shipped",
  "delivered",
  "cancelled",
  "teleported",
);
const statusData = fc.record({ status, previousStatus: fc.option(status, { nil: undefined }) });
const shippingData = fc.record({
  parcel: fc.record({ number: fc.integer({ min: -1, max: 3 }), of: fc.integer({ min: 0, max: 3 }) }),
  carrier: fc.string(),
  trackingNumber: fc.string(),
  trackingUrl: fc.oneof(fc.webUrl(), fc.string()),
  status: fc.constantFrom("shipped", "in_transit", "out_for_delivery", "delivered", "exception", "lost"),
  lines: fc.array(fc.record({ itemNumber: fc.string(), quantity: fc.integer() }), { maxLength: 3 }),
});
/** An event that is valid or nearly so: the shape a real delivery has, each field possibly broken. */
const eventLike = fc.record(
  {
    id: eventId,
    type: fc.constantFrom("order.status_changed", "order.shipping_updated", "order.exploded", ""),
    occurredAt: fc.oneof(isoDate, fc.string(), fc.integer()),
    correlationId: fc.oneof(fc.uuid(), fc.string()),
    externalDocumentNumber: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    data: fc.oneof(statusData, shippingData, fc.jsonValue(), fc.constant(null)),
  },
  { requiredKeys: [] },
);
/** A well-formed event of a known type (the receiver must take these), with room for extra fields. */
const validEvent = fc
  .record({
    id: fc.uuid().map((u) => `evt_${u.replace(/-/g, "")}`),
    occurredAt: isoDate,
    correlationId: fc.uuid(),
    externalDocumentNumber: fc.string({ minLength: 1, maxLength: 35 }),
    shipping: fc.boolean(),
    status: fc.constantFrom("validated", "in_fulfilment", "picked", "packed", "shipped", "delivered"),
    extra: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }),
  })
  .map(({ shipping, status: s, extra, ...e }) => ({
    ...e,
    type: shipping ? "order.shipping_updated" : "order.status_changed",
    data: shipping
      ? {
          ...extra,
          parcel: { number: 1, of: 1 },
          carrier: "DHL Express",
          trackingNumber: "1234567890",
          trackingUrl: "https://example.com/track/1234567890",
          status: "in_transit",
          lines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
        }
      : { ...extra, status: s },
  }));
/** Strings that are hard on parsers, databases and renderers. */
const nastyString = fc.oneof(
  fc.constantFrom(
    "\u0000",
    "\ud800",
    "\udfff\ud800",
    "🦄".repeat(1000),
    "\u202e\u0635",
    "%s%n%x",
    "'; DROP TABLE orders; --",
    "<script>alert(1)</script>",
    "\\u0000",
    "x".repeat(200_000),
  ),
  fc.string({ unit: "binary" }),
);
const hostileKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty");

/** JSON text by hand, so that `__proto__` survives as a key and lone surrogates are written escaped. */
function jsonText(value: unknown): string {
  return JSON.stringify(value);
}

function withPollution(base: Record<string, unknown>, key: string, where: "top" | "data"): string {
  const payload = '{"polluted":"yes","prototype":{"polluted":"yes"}}';
  const text = jsonText(base);
  if (where === "top" || !text.includes('"data":{')) return `{"${key}":${payload},${text.slice(1)}`;
  return text.replace('"data":{', `"data":{"${key}":${payload},`);
}

function deeplyNested(depth: number, open: string, close: string): string {
  return open.repeat(depth) + close.repeat(depth);
}

const body: fc.Arbitrary<{ kind: string; text: string | Buffer; id: string | undefined }> = fc.oneof(
  { weight: 3, arbitrary: validEvent.map((e) => ({ kind: "event", text: jsonText(e), id: e.id })) },
  { weight: 3, arbitrary: eventLike.map((e) => ({ kind: "event-like", text: jsonText(e), id: e.id })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.oneof(validEvent, eventLike), hostileKey, fc.constantFrom<"top" | "data">("top", "data"))
      .map(([e, key, where]) => ({ kind: "proto-keys", text: withPollution(e, key, where), id: e.id })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.oneof(validEvent, eventLike), fc.string(), nastyString).map(([e, key, value]) => ({
      kind: "nasty-strings",
      text: jsonText({
        ...e,
        data: { ...(typeof e.data === "object" && e.data ? e.data : {}), [key]: value },
      }),
      id: e.id,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(validEvent, fc.integer({ min: 10, max: 120_000 }), fc.boolean())
      .map(([e, depth, arrays]) => {
        const nested = arrays
          ? deeplyNested(depth, "[", "]")
          : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
        return {
          kind: "deep-nesting",
          text: jsonText({ ...e, data: { status: "packed" } }).replace(
            '"data":{',
            `"data":{"deep":${nested},`,
          ),
          id: e.id,
        };
      }),
  },
  {
    weight: 2,
    arbitrary: fc.jsonValue().map((v) => ({ kind: "any-json", text: jsonText(v), id: undefined })),
  },
  {
    weight: 2,
    arbitrary: fc.string({ unit: "binary" }).map((s) => ({ kind: "not-json", text: s, id: undefined })),
  },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 512 })
      .map((b) => ({ kind: "bytes", text: Buffer.from(b), id: undefined })),
  },
  {
    weight: 1,
    arbitrary: eventLike.map((e) => ({
      kind: "truncated",
      text: jsonText(e).slice(0, Math.max(1, jsonText(e).length - 3)),
      id: e.id,
    })),
  },
);

// ---- headers ----------------------------------------------------------------------------------------------

type Signing =
  | "genuine"
  | "unsigned"
  | "wrong-secret"
  | "old-secret"
  | "stale"
  | "future"
  | "garbage-headers"
  | "id-mismatch"
  | "tampered";
const signing = fc.constantFrom<Signing>(
  "genuine",
  "genuine",
  "genuine",
  "genuine",
  "unsigned",
  "wrong-secret",
  "old-secret",
  "stale",
  "future",
  "garbage-headers",
  "id-mismatch",
  "tampered",
);

function deliveryArb(current: string, old: string): fc.Arbitrary<Delivery> {
  return fc
    .record({
      body,
      signing,
      skew: fc.integer({ min: 301, max: 10_000_000 }),
      garbage: fc.dictionary(
        fc.constantFrom("webhook-id", "webhook-timestamp", "webhook-signature", "content-type"),
        fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
      ),
      // One header of 15,000 characters (Node refuses more than 16 KB of headers in all, before any handler):
      // what a refusal logs and answers must not grow with it.
      longHeader: fc.oneof(
        { weight: 8, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.constantFrom("webhook-id", "webhook-timestamp", "webhook-signature", "content-type"),
        },
      ),
      contentType: fc.constantFrom(
        "application/json",
        "application/json",
        "application/json",
        "application/json",
        "application/json; charset=utf-8",
        "application/cloudevents+json",
        "text/plain",
        "",
      ),
    })
    .map(({ body: b, signing: how, skew, garbage, longHeader, contentType }) => {
      const id =
        b.id !== undefined && typeof b.id === "string" && b.id.length > 0 ? b.id : `msg_${randomUUID()}`;
      // Header values must be ASCII, and HTTP drops a value's leading and trailing white space: such an id cannot
      // be a webhook-id as signed (the sender's ids are ASCII, without surrounding spaces).
      const headerId = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(id) ? id : `msg_${randomUUID()}`;
      const sign = (secret: string, ts: number, msgId = headerId) =>
        signWebhook({ id: msgId, timestamp: ts, body: b.text, secret });
      let headers: Record<string, string> = {};
      switch (how) {
        case "genuine":
          headers = sign(current, nowSec());
          break;
        case "unsigned":
          headers = {};
          break;
        case "wrong-secret":
          headers = sign(generateWebhookSecret(), nowSec());
          break;
        case "old-secret":
          headers = sign(old, nowSec());
          break;
        case "stale":
          headers = sign(current, nowSec() - skew);
          break;
        case "future":
          headers = sign(current, nowSec() + skew);
          break;
        case "garbage-headers":
          headers = { ...sign(current, nowSec()), ...garbage };
          break;
        case "id-mismatch":
          headers = { ...sign(current, nowSec(), `msg_${randomUUID()}`) };
          break;
        case "tampered": {
          const signed = sign(current, nowSec());
          headers = { ...signed, "webhook-id": `${signed["webhook-id"]}x` };
          break;
        }
      }
      const ct =
        how === "garbage-headers" && garbage["content-type"] !== undefined
          ? garbage["content-type"]
          : contentType;
      const long = longHeader
        ? { [longHeader]: `${longHeader === "content-type" ? "application/" : ""}${"h".repeat(15_000)}` }
        : {};
      return {
        kind: `${b.kind}/${how}${longHeader ? `/long-${longHeader}` : ""}`,
        bodyId: typeof b.id === "string" ? b.id : undefined,
        body: b.text,
        headers: { ...headers, ...(ct ? { "content-type": ct } : {}), ...long },
        // The content type is not a reason to refuse an authentic delivery (nor is a body id that differs from the
        // signed webhook-id: "id-mismatch" signs the header's id, so it is genuine); only the signature headers are.
        genuine:
          (longHeader === null || longHeader === "content-type") &&
          (how === "genuine" ||
            how === "id-mismatch" ||
            (how === "garbage-headers" &&
              !["webhook-id", "webhook-timestamp", "webhook-signature"].some((h) => h in garbage))),
      };
    });
}

describe("the webhook endpoint under hostile input", () => {
  let world: World;
  let app: InProcessDesk;
  let pool: Pool;
  const oldSecret = generateWebhookSecret();
  const figures = {
    inputsTried: 0,
    crashes: 0,
    http5xx: 0,
    leaks: 0,
    accepted: 0,
    byStatus: new Map<number, number>(),
  };
  const notes: string[] = [];
  const t0 = Date.now();

  beforeAll(async () => {
    world = await startWorld({ speed: 1, seed: "hostile-webhooks" });
    // After a rotation: only the current secret is configured; deliveries signed with the old one must fail.
    app = await startInProcessDesk(world, "hostile-webhooks", { WEBHOOK_TOLERANCE_SECONDS: "300" });
    pool = new Pool(app.desk.url, { connections: 8, pipelining: 1 });
  });

  afterAll(async () => {
    await pool?.close();
    await app?.close();
    await world?.close();
    const leaks = app ? scanFile(app.logFile, [...world.secrets(), oldSecret]) : [];
    figures.leaks += leaks.length;
    notes.push(
      `statuses: ${[...figures.byStatus]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(", ")}; ` + `${figures.accepted} genuine deliveries stored; seed ${SEED}`,
      ...leaks.map((l) => `${l.secret} in the log, line ${l.line}`),
    );
    record(
      {
        scenario: "hostile webhooks",
        inputsTried: figures.inputsTried,
        crashes: figures.crashes,
        http5xx: figures.http5xx,
        leaks: figures.leaks,
        durationMs: Date.now() - t0,
        notes,
      },
      [...(world?.secrets() ?? []), oldSecret],
    );
  });

  async function deliver(d: { body: string | Buffer; headers: Record<string, string> }) {
    const res = await pool.request({ path: PATH, method: "POST", body: d.body, headers: d.headers });
    const text = await res.body.text();
    figures.inputsTried++;
    figures.byStatus.set(res.statusCode, (figures.byStatus.get(res.statusCode) ?? 0) + 1);
    if (res.statusCode >= 500) figures.http5xx++;
    return { status: res.statusCode, text };
  }

  // First, while the admin channel is quiet: the fuzz below opens an admin alert per new shape of unreadable
  // body, which Slack's posting pace then delivers for minutes.
  describe("an orphan flood", () => {
    it(`sends the admin channel at most one alert per sweep for ${FLOOD} unknown correlation ids, and keeps a failed order in Needs attention`, async () => {
      const crashes = watchForCrashes();
      const requests = slackRequests(world.fake, app.desk.url, world.signingSecret);
      const alice = new SlackUser({ fake: world.fake, requests, userId: AGENT, timeoutMs: 5_000 });
      if (!world.fake.workspace.users.has(ADMIN_USER))
        world.fake.addUser({ id: ADMIN_USER, name: "reladmin", realName: "Rel Admin" });

      // A real failure an admin must see: the supplier refuses every key for this order, so it fails for good.
      world.gateway.refuseKeysFor("FLOOD-1");
      const { triggerId } = await alice.runCommand({
        channel: CHANNELS[3] as string,
        command: "/order",
        text: "FLOOD-1",
      });
      const view = await alice.openedModal(triggerId);
      expect((await alice.submit(view.id, orderForm("FLOOD-1"))).outcome.outcome).toBe("closed");
      const failed = await world.fake.waitFor(
        () =>
          world.fake
            .topLevel(ADMIN_CHANNEL)
            .find((m) => JSON.stringify(m.versions.at(-1)).includes("FLOOD-1")),
        { what: "FLOOD-1's failed-order alert", timeoutMs: 30_000 },
      );
      world.gateway.accept("FLOOD-1");
      const { rows } = await app.desk.store.query(
        "SELECT external_document_number AS edn, status FROM orders WHERE customer_reference = 'FLOOD-1'",
      );
      expect(rows[0]?.status).toBe("failed");
      const edn = String(rows[0]?.edn);
      expect(JSON.stringify(failed.versions.at(-1))).toContain(edn);

      // The flood: signed, fresh, each for a correlation id no order has, all within a minute.
      const started = Date.now();
      const ids = Array.from({ length: FLOOD }, () => randomUUID());
      const statuses = ["received", "validated", "in_fulfilment", "picked", "packed", "shipped"];
      for (let i = 0; i < ids.length; i += 20) {
        const answers = await Promise.all(
          ids.slice(i, i + 20).map((correlationId, j) => {
            const id = `evt_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
            const text = JSON.stringify({
              id,
              type: "order.status_changed",
              occurredAt: new Date().toISOString(),
              correlationId,
              data: { status: statuses[(i + j) % statuses.length] },
            });
            const secret = world.webhookSecrets[0] as string;
            return deliver({
              body: text,
              headers: {
                "content-type": "application/json",
                ...signWebhook({ id, timestamp: nowSec(), body: text, secret }),
              },
            });
          }),
        );
        expect(answers.map((a) => a.status).filter((s) => s >= 300)).toEqual([]);
      }
      expect(Date.now() - started).toBeLessThan(60_000);

      // Sweeps as the app runs them, reporting at once (the app waits ORPHAN_AFTER_MS first); every sweep reads
      // a bounded batch and sends at most one alert.
      const sweeper = createOrphanSweeper({
        store: app.desk.store,
        jobs: app.desk.jobs,
        orphanAfterMs: 0,
        alertAdmins: (alert) => app.desk.slack.notifier.alertAdmins(alert),
      });
      const before = world.fake.topLevel(ADMIN_CHANNEL).length;
      const perSweep: number[] = [];
      // A sweep reads at most 100 orphan events: enough sweeps for all of them, and a bound if none ends it.
      const { rows: waiting } = await app.desk.store.query(
        "SELECT count(*)::int AS n FROM supplier_events WHERE order_id IS NULL AND orphan_reported_at IS NULL",
      );
      const sweeps = Math.ceil(Number(waiting[0]?.n) / 100) + 2;
      for (let sweep = 0; sweep < sweeps; sweep++) {
        const seen = world.fake.topLevel(ADMIN_CHANNEL).length;
        const result = await sweeper.runOnce();
        perSweep.push(world.fake.topLevel(ADMIN_CHANNEL).length - seen);
        if (result.reported === 0) break;
      }
      notes.push(
        `orphan flood: ${FLOOD} unknown ids among ${waiting[0]?.n} unreported orphan events; ` +
          `${perSweep.length} sweeps made ${perSweep.reduce((a, b) => a + b, 0)} admin alerts`,
      );
      expect(
        perSweep.every((n) => n <= 1),
        `alerts per sweep: ${perSweep}`,
      ).toBe(true);
      const { rows: left } = await app.desk.store.query(
        "SELECT count(*)::int AS n FROM supplier_events WHERE order_id IS NULL AND orphan_reported_at IS NULL AND correlation_id = ANY($1)",
        [ids],
      );
      expect(left[0]?.n, "flood events never reported").toBe(0);
      const summaries = world.fake
        .topLevel(ADMIN_CHANNEL)
        .slice(before)
        .map((m) => m.versions.at(-1)?.text ?? "");
      expect(summaries.length).toBeGreaterThan(0);
      for (const text of summaries)
        expect(text).toMatch(/correlation ids with supplier updates for no known order/);

      // An admin's App Home: the failed order is in sight above the flood, and every kind is counted.
      await requests.appHomeOpened({ userId: ADMIN_USER });
      const home = await world.fake.waitFor(
        () => {
          const v = world.fake.homeView(ADMIN_USER);
          return v && JSON.stringify(v.definition.blocks).includes("groups of orphan events") ? v : undefined;
        },
        { what: "the admin's App Home with Needs attention", timeoutMs: 15_000 },
      );
      const shown = JSON.stringify(home.definition.blocks);
      expect(shown).toContain("Needs attention");
      expect(shown).toContain(edn);
      expect(shown).toContain("1 failed order");
      expect(Number(/(\d+) groups of orphan events/.exec(shown)?.[1])).toBeGreaterThanOrEqual(FLOOD);
      expect(shown.indexOf(edn)).toBeLessThan(shown.indexOf("Ignore all"));
      crashes.stop();
      figures.crashes += crashes.count;
      expect(crashes.errors).toEqual([]);
    }, 120_000);
  });

  it(
    `answers up to ${RUNS} fuzzed deliveries with 2xx or a clear 4xx, storing only genuine events`,
    async () => {
      const crashes = watchForCrashes();
      const triedBefore = figures.inputsTried;
      const acceptedIds = new Set<string>();
      let acceptedCount = 0;
      /** Every broken promise, by kind (the run goes on, so the figures cover all the cases). */
      const failures = new Map<string, { count: number; example: string }>();
      const fail = (kind: string, what: string) => {
        const key = `${kind}: ${what.slice(0, 160)}`.replace(/\d{3,}/g, "N");
        const seen = failures.get(key);
        if (seen) seen.count++;
        else failures.set(key, { count: 1, example: what.slice(0, 400) });
      };
      const count = async (table: string) =>
        Number((await app.desk.store.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.n);
      const before = await count("supplier_events");
      const unreadableBefore = await count("unreadable_events");
      try {
        await FUZZ.assert(
          fc.asyncProperty(deliveryArb(world.webhookSecrets[0] as string, oldSecret), async (d) => {
            const res = await deliver(d).catch((error: Error) => ({
              status: 0,
              text: `no answer: ${error.message}`,
            }));
            const kind = d.kind.replace(/\/.*/, "");
            if (res.status === 0 || res.status >= 500) fail(d.kind, `HTTP ${res.status} ${res.text}`);
            else if (res.status < 300) {
              if (!d.genuine) fail(d.kind, `accepted: ${res.text}`);
              acceptedCount++;
              // Kept under the id the mapping reads, without surrounding whitespace.
              if (d.bodyId !== undefined) acceptedIds.add(d.bodyId).add(d.bodyId.trim());
            } else {
              // An authentic delivery is never refused, unless its body is over a limit (nesting).
              if (d.genuine && !(kind === "deep-nesting" && res.status === 400))
                fail(d.kind, `authentic delivery refused ${res.status}: ${res.text}`);
              // A refusal says what was wrong, in JSON: a code and a sentence.
              try {
                const answer = JSON.parse(res.text) as { ok?: boolean; error?: unknown; message?: unknown };
                if (
                  answer.ok !== false ||
                  typeof answer.error !== "string" ||
                  typeof answer.message !== "string"
                )
                  fail(kind, `unclear refusal ${res.status}: ${res.text}`);
              } catch {
                fail(kind, `refusal ${res.status} is not JSON: ${res.text}`);
              }
            }
            if (({} as Record<string, unknown>).polluted !== undefined)
              fail(d.kind, "Object.prototype polluted");
          }),
        );
      } finally {
        crashes.stop();
        figures.crashes += crashes.count;
        notes.push(...crashes.errors.slice(0, 5));
        figures.accepted = acceptedCount;
        notes.push(FUZZ.note("deliveries", figures.inputsTried - triedBefore));
        for (const [key, { count }] of failures) notes.push(`${count}× ${key}`);
      }
      expect([...failures.values()].map((f) => f.example)).toEqual([]);
      expect(crashes.errors).toEqual([]);
      expect(Object.prototype).not.toHaveProperty("polluted");
      // Nothing from a refused delivery: every event stored is an accepted body's (read by its own id), and every
      // accepted delivery is kept once, as an event or as unreadable (redeliveries of one body count once).
      const { rows } = await app.desk.store.query(
        "SELECT id FROM supplier_events ORDER BY received_at, id OFFSET $1",
        [before],
      );
      const stored = rows.map((r) => String(r.id));
      for (const id of stored) expect(acceptedIds.has(id), `stored ${id} was never accepted`).toBe(true);
      const unreadable = (await count("unreadable_events")) - unreadableBefore;
      expect(stored.length + unreadable).toBeGreaterThan(0);
      expect(stored.length + unreadable).toBeLessThanOrEqual(acceptedCount);
      // A refusal logs a caller's header cut short: no 15,000-character header, no line that grows with one.
      const log = readFileSync(app.logFile, "utf8");
      expect(log).not.toContain("h".repeat(100));
      expect(Math.max(0, ...log.split("\n").map((line) => line.length))).toBeLessThan(10_000);
    },
    FUZZ.timeoutMs,
  );

  describe("signatures", () => {
    const event = () => {
      const id = `evt_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
      const json = {
        id,
        type: "order.status_changed",
        occurredAt: new Date().toISOString(),
        correlationId: randomUUID(),
        data: { status: "validated", previousStatus: "received" },
      };
      return { id, text: JSON.stringify(json) };
    };
    const post = (text: string, headers: Record<string, string>) =>
      deliver({ body: text, headers: { "content-type": "application/json", ...headers } });
    const current = () => world.webhookSecrets[0] as string;

    it("refuses a delivery without signature headers, with a wrong one, or signed with the rotated-out secret", async () => {
      const e = event();
      expect((await post(e.text, {})).status).toBe(401);
      expect((await post(e.text, { "webhook-id": e.id, "webhook-timestamp": String(nowSec()) })).status).toBe(
        401,
      );
      const wrong = signWebhook({
        id: e.id,
        timestamp: nowSec(),
        body: e.text,
        secret: generateWebhookSecret(),
      });
      expect((await post(e.text, wrong)).status).toBe(401);
      const old = signWebhook({ id: e.id, timestamp: nowSec(), body: e.text, secret: oldSecret });
      expect((await post(e.text, old)).status).toBe(401);
      const bothSecrets = signWebhook({
        id: e.id,
        timestamp: nowSec(),
        body: e.text,
        secret: [oldSecret, current()],
      });
      expect((await post(e.text, bothSecrets)).status).toBeLessThan(300);
    });

    it("refuses stale and future timestamps beyond the tolerance, and accepts them within it", async () => {
      for (const [skew, ok] of [
        [-301, false],
        [301, false],
        [-86_400, false],
        [86_400 * 365, false],
        [-290, true],
        [290, true],
      ] as const) {
        const e = event();
        const res = await post(
          e.text,
          signWebhook({ id: e.id, timestamp: nowSec() + skew, body: e.text, secret: current() }),
        );
        expect(res.status < 300, `skew ${skew}: ${res.status} ${res.text}`).toBe(ok);
        if (!ok) expect([400, 401]).toContain(res.status);
      }
    });

    it("stores a replayed delivery once, whether replayed verbatim, re-signed, or with a different body", async () => {
      const e = event();
      const headers = signWebhook({ id: e.id, timestamp: nowSec(), body: e.text, secret: current() });
      expect((await post(e.text, headers)).status).toBeLessThan(300);
      const verbatim = await post(e.text, headers);
      expect(verbatim.status).toBe(200);
      expect(JSON.parse(verbatim.text)).toMatchObject({ duplicate: true });
      const resigned = signWebhook({ id: e.id, timestamp: nowSec() + 1, body: e.text, secret: current() });
      expect(JSON.parse((await post(e.text, resigned)).text)).toMatchObject({ duplicate: true });
      const altered = JSON.stringify({ ...JSON.parse(e.text), data: { status: "cancelled" } });
      const alteredHeaders = signWebhook({ id: e.id, timestamp: nowSec(), body: altered, secret: current() });
      expect(JSON.parse((await post(altered, alteredHeaders)).text)).toMatchObject({ duplicate: true });
      const { rows } = await app.desk.store.query("SELECT payload FROM supplier_events WHERE id = $1", [
        e.id,
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.payload.data.status).toBe("validated");
      // A captured delivery replayed after the tolerance is refused outright.
      const captured = signWebhook({ id: e.id, timestamp: nowSec() - 600, body: e.text, secret: current() });
      expect([400, 401]).toContain((await post(e.text, captured)).status);
    });
  });
});
