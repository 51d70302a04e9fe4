/**
 * `/order export [YYYY-MM]` over the real wire: signed slash commands to Order Desk (its composition root, the
 * embedded store), the month's orders read from the store, the CSV uploaded with the files.uploadV2 flow to the
 * fake Slack Web API (files.getUploadURLExternal → the bytes → files.completeUploadExternal) and shared in the
 * admin's DM. Non-admins get nothing; a bad month gets a clear answer; typed text is never taken as mrkdwn.
 */
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderDesk } from "../../src/main.ts";
import type { Store } from "../../src/store/db.ts";
import { insertOrder } from "../../src/store/repositories/orders.ts";
import type { FakeFile } from "../../tools/fake-slack/index.ts";
import { startWorld, type World } from "../../tools/world.ts";
import { parseCsv } from "../helpers/csv.ts";

const HELPDESK = "C0HELPDESK";
const ADMIN_CHANNEL = "C0ITADMIN";
const AGENT = "U0AGENT01";
/** In `admins` of the example customer file. */
const IT_LEAD = "U0ITLEAD";

let world: World;
let desk: OrderDesk;

/** An order as the store holds it, taken at `createdAt`. */
async function seedOrder(
  store: Store,
  fields: { number: string; ticket: string; createdAt: string; firstName: string; lastName: string },
): Promise<string> {
  const id = randomUUID();
  await insertOrder(store, {
    id,
    profile: "Acme EU",
    externalDocumentNumber: fields.number,
    customerReference: fields.ticket,
    requestedBy: AGENT,
    source: "command",
    request: {
      externalDocumentNumber: fields.number,
      type: "Standard",
      customerReference: fields.ticket,
      invoice: { id: "INV-1" },
      shipping: {
        deliveryAt: "Office",
        companyName: "Acme BV",
        contact: {
          firstName: fields.firstName,
          lastName: fields.lastName,
          phoneNumber: "+31 20 555 0101",
          email: "nina@example.com",
        },
        address1: "Herengracht 500",
        city: "Amsterdam",
        zipCode: "1017 CB",
        countryIso2: "NL",
      },
      orderLines: [
        { itemNumber: "LAP-14-PRO", quantity: 1 },
        { itemNumber: "DOCK-USBC", quantity: 0 },
        { itemNumber: "MON-27-4K", quantity: 2 },
      ],
    },
  });
  await store.query("UPDATE orders SET created_at = $2 WHERE id = $1", [id, fields.createdAt]);
  return id;
}

beforeAll(async () => {
  world = await startWorld({
    slack: {
      users: [
        { id: AGENT, name: "alice", realName: "Alice Agent" },
        { id: IT_LEAD, name: "ivy", realName: "Ivy IT Lead" },
      ],
      channels: [
        { id: HELPDESK, name: "helpdesk" },
        { id: ADMIN_CHANNEL, name: "it-admin" },
      ],
    },
  });
  desk = await world.startDesk({ logger: pino({ level: "silent" }) });
  const store = desk.store;
  const delivered = await seedOrder(store, {
    number: "HD-1-1",
    ticket: "HD-1",
    createdAt: "2026-10-01T00:00:00Z",
    firstName: "Nina",
    lastName: "Newhire",
  });
  // Placed and delivered: a correlation id, the supplier's events, two parcels' tracking.
  await store.query(
    `UPDATE orders SET correlation_id = $2, status = 'delivered', status_occurred_at = '2026-10-03T09:00:00Z',
            tracking = $3 WHERE id = $1`,
    [
      delivered,
      "c0ffee00-0000-4000-8000-000000000001",
      JSON.stringify({
        latest: parcel(2, "1Z999"),
        parcels: { "2": parcel(2, "1Z999"), "1": parcel(1, "00340434") },
      }),
    ],
  );
  for (const [status, at] of [
    ["received", "2026-10-01T00:05:00Z"],
    ["delivered", "2026-10-03T09:00:00Z"],
  ] as const) {
    await store.query(
      `INSERT INTO supplier_events (id, correlation_id, order_id, type, occurred_at, payload)
       VALUES ($1, $2, $3, 'order.status_changed', $4, $5)`,
      [
        randomUUID(),
        "c0ffee00-0000-4000-8000-000000000001",
        delivered,
        at,
        JSON.stringify({ data: { status } }),
      ],
    );
  }
  // Orphans of another correlation id, from before the order was taken, attached to it by an admin: they are not
  // when the supplier took this order.
  const attached = "c0ffee00-0000-4000-8000-0000000000aa";
  await store.query("INSERT INTO order_aliases (correlation_id, order_id, created_by) VALUES ($1, $2, $3)", [
    attached,
    delivered,
    IT_LEAD,
  ]);
  await store.query(
    `INSERT INTO supplier_events (id, correlation_id, order_id, type, occurred_at, payload)
     VALUES ($1, $2, $3, 'order.status_changed', '2026-09-28T10:00:00Z', $4)`,
    [randomUUID(), attached, delivered, JSON.stringify({ data: { status: "received" } })],
  );
  // A recipient whose name a spreadsheet would run as a formula, with a comma and quotes in it.
  await seedOrder(store, {
    number: "HD-2-1",
    ticket: "HD-2",
    createdAt: "2026-10-31T23:59:59.999Z",
    firstName: '=HYPERLINK("http://evil.example","click")',
    lastName: "Smith, Jr.",
  });
  // Outside October on either side.
  await seedOrder(store, {
    number: "HD-3-1",
    ticket: "HD-3",
    createdAt: "2026-11-01T00:00:00Z",
    firstName: "Nov",
    lastName: "Ember",
  });
  await seedOrder(store, {
    number: "HD-0-1",
    ticket: "HD-0",
    createdAt: "2026-09-30T23:59:59.999Z",
    firstName: "Sep",
    lastName: "Tember",
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

function parcel(number: number, trackingNumber: string) {
  return {
    carrier: number === 1 ? "DHL" : "UPS",
    trackingNumber,
    trackingUrl: `https://track.example/${trackingNumber}`,
    status: "delivered",
    parcel: { number, of: 2 },
    occurredAt: "2026-10-02T10:00:00Z",
    eventId: randomUUID(),
  };
}

/** Runs the command and returns what the app answered on the response URL (ephemeral texts, in order). */
async function command(userId: string, text: string, answers = 1): Promise<string[]> {
  const before = world.fake.responses().length;
  const { response } = await world.user(userId).runCommand({ channel: HELPDESK, command: "/order", text });
  expect(response.status).toBe(200);
  const posts = await world.fake.waitFor(
    () => {
      const after = world.fake.responses().slice(before);
      return after.length >= answers ? after : undefined;
    },
    { what: `${answers} answer(s) to /order ${text}`, timeoutMs: 15_000 },
  );
  return posts.map((p) => String((p.body as { text?: unknown }).text ?? ""));
}

async function uploadedFile(filename: string): Promise<FakeFile> {
  return world.fake.waitFor(
    () => world.fake.files().find((f) => f.filename === filename && f.completed && f.shares.length > 0),
    { what: `${filename} shared`, timeoutMs: 15_000 },
  );
}

describe("/order export", () => {
  it("uploads the month's orders as CSV to the admin's DM, with personal data left out", async () => {
    const [answer] = await command(IT_LEAD, "export 2026-10");
    expect(answer).toContain("October 2026");
    const file = await uploadedFile("orders-2026-10.csv");
    expect(file.shares).toEqual([{ channel: "D0ITLEAD", ts: expect.any(String) }]);
    const dm = world.fake.dm(IT_LEAD).map((m) => m.text);
    expect(dm.some((t) => t.includes("2 orders") && t.includes("left out"))).toBe(true);

    const text = file.content?.toString("utf8") ?? "";
    expect(text.endsWith("\r\n")).toBe(true);
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual([
      "order_number",
      "correlation_id",
      "ticket",
      "profile",
      "requester",
      "recipient_name",
      "items",
      "status",
      "ordered_at",
      "placed_at",
      "delivered_at",
      "tracking_numbers",
      "needed_by",
      "expected_delivery",
      "late_days",
      // The example customer file has prices: the money columns follow.
      "unit_prices",
      "line_totals",
      "order_total",
      "currency",
    ]);
    expect(rows.map((r) => r[0])).toEqual(["HD-1-1", "HD-2-1"]);
    expect(rows[0]).toEqual([
      "HD-1-1",
      "c0ffee00-0000-4000-8000-000000000001 c0ffee00-0000-4000-8000-0000000000aa",
      "HD-1",
      "Acme EU",
      AGENT,
      "Nina Newhire",
      "LAP-14-PRO x1; MON-27-4K x2",
      "delivered",
      "2026-10-01T00:00:00.000Z",
      // The order's own first event, not the earlier orphan's.
      "2026-10-01T00:05:00.000Z",
      "2026-10-03T09:00:00.000Z",
      "DHL 00340434; UPS 1Z999",
      "",
      "",
      "",
      // Stored without prices (seeded as if accepted before the file had them): no amounts.
      "",
      "",
      "",
      "",
    ]);
    // Shown as text in a spreadsheet, never run as a formula; the comma and quotes survive the quoting.
    expect(rows[1]?.[5]).toBe(`'=HYPERLINK("http://evil.example","click") Smith, Jr.`);
    expect(rows[1]?.[9]).toBe("");
    expect(text).not.toContain("nina@example.com");
    expect(text).not.toContain("+31 20 555 0101");
    expect(text).not.toContain("Herengracht");
  });

  it("does nothing for someone who is not an admin, and says who may", async () => {
    const filesBefore = world.fake.files().length;
    const [answer] = await command(AGENT, "export 2026-10");
    expect(answer).toContain("Only Order Desk admins");
    expect(answer).toContain(`<@${IT_LEAD}>`);
    expect(world.fake.files()).toHaveLength(filesBefore);
    expect(world.fake.dm(AGENT)).toEqual([]);
  });

  it.each([
    ["2026-13"],
    ["26-10"],
    ["2026-10 and more"],
    ["<!channel> =cmd|' /C calc'!A0"],
    ["<@U0AGENT01> <https://evil.example|click>"],
  ])("answers %j with a clear error and uploads nothing", async (month) => {
    const filesBefore = world.fake.files().length;
    const [answer] = await command(IT_LEAD, `export ${month}`);
    expect(answer).toContain("That is not a month. Give the month as YYYY-MM");
    expect(world.fake.files()).toHaveLength(filesBefore);
    // The admin named in an earlier refusal is the one mention allowed.
    expect(world.fake.injections({ allowUsers: [IT_LEAD] })).toEqual([]);
  });

  it("tells the admin to reinstall the app when Slack refuses the upload for a missing scope", async () => {
    world.fake.failNext("files.getUploadURLExternal", "missing_scope");
    const answers = await command(IT_LEAD, "export 2026-09", 2);
    expect(answers[1]).toContain("reinstall the app from manifest.yml");
    // Nothing announced a file that never came.
    expect(world.fake.dm(IT_LEAD).filter((m) => m.text.includes("September 2026"))).toEqual([]);
  });

  it("exports an empty month as a header line", async () => {
    await command(IT_LEAD, "export 2031-02");
    const file = await uploadedFile("orders-2031-02.csv");
    expect(parseCsv(file.content?.toString("utf8") ?? "")).toHaveLength(1);
  });
});
