/** The export's CSV and months, as the domain builds them (no Slack, no database). */
import { describe, expect, it } from "vitest";
import {
  csvCell,
  csvLine,
  type ExportOrder,
  exportCsv,
  itemsCell,
  parseExportMonth,
  trackingCell,
} from "../../src/orders/export/index.ts";
import { parseCsv } from "../helpers/csv.ts";

const order = (overrides: Partial<ExportOrder> = {}): ExportOrder => ({
  externalDocumentNumber: "HD-1-1",
  correlationId: null,
  ticket: "HD-1",
  profile: "Acme EU",
  requestedBy: "U0AGENT01",
  status: "queued",
  createdAt: new Date("2026-11-02T08:00:00Z"),
  placedAt: null,
  deliveredAt: null,
  shipping: {
    companyName: "Acme BV",
    contact: { firstName: "Nina", lastName: "Newhire", email: "nina@example.com", phoneNumber: "+31 20 555" },
    address1: "Herengracht 500",
    zipCode: "1017 CB",
    city: "Amsterdam",
    countryIso2: "NL",
  },
  orderLines: [{ itemNumber: "LAP-14-PRO", quantity: 1 }],
  tracking: null,
  ...overrides,
});

async function collect(lines: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const line of lines) text += line;
  return text;
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

describe("CSV cells", () => {
  it.each([
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    [" padded ", '" padded "'],
    ["=1+2", "'=1+2"],
    ["+31 20 555", "'+31 20 555"],
    ["-2", "'-2"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\t=cmd", "'\t=cmd"],
    ['=HYPERLINK("x","y")', `"'=HYPERLINK(""x"",""y"")"`],
  ])("%j is written as %j", (value, written) => {
    expect(csvCell(value)).toBe(written);
  });

  it("writes numbers as they are, and nothing for null", () => {
    expect(csvLine([1, null, undefined, "x"])).toBe("1,,,x\r\n");
  });
});

describe("months", () => {
  const now = new Date("2026-11-30T23:59:59.999Z");

  it("defaults to the month the injected clock is in (UTC)", () => {
    const parsed = parseExportMonth("", now);
    expect(parsed).toMatchObject({ ok: true, month: { label: "2026-11" } });
    const next = parseExportMonth(undefined, new Date("2026-12-01T00:00:00Z"));
    expect(next).toMatchObject({ ok: true, month: { label: "2026-12" } });
  });

  it("covers the month from its first instant to the next month's", () => {
    const parsed = parseExportMonth(" 2026-12 ", now);
    if (!parsed.ok) throw new Error("expected a month");
    expect(parsed.month.start.toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(parsed.month.end.toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });

  it.each(["2026-13", "2026-00", "1999-12", "2026-1", "2026/11", "november", "2026-11-01", "x".repeat(500)])(
    "refuses %j, saying what to type",
    (typed) => {
      const parsed = parseExportMonth(typed, now);
      expect(parsed).toMatchObject({
        ok: false,
        message: expect.stringContaining("YYYY-MM, for example 2026-11"),
      });
      if (!parsed.ok) expect(parsed.typed.length).toBeLessThanOrEqual(21);
    },
  );
});

describe("the export's rows", () => {
  it("leaves the recipient's e-mail, phone and address out unless personal data is asked for", async () => {
    const without = parseCsv(await collect(exportCsv(from([order()]), { personalData: false })));
    expect(without[0]).toHaveLength(15);
    expect(without[1]?.[5]).toBe("Nina Newhire");
    expect(JSON.stringify(without)).not.toMatch(/nina@example|Herengracht|555/);

    const tally = { orders: 0 };
    const withData = parseCsv(
      await collect(exportCsv(from([order(), order()]), { personalData: true }, tally)),
    );
    expect(withData[0]?.slice(15)).toEqual(["recipient_email", "recipient_phone", "recipient_address"]);
    expect(withData[1]?.slice(15)).toEqual([
      "nina@example.com",
      "'+31 20 555",
      "Acme BV, Herengracht 500, 1017 CB Amsterdam, NL",
    ]);
    expect(tally.orders).toBe(2);
  });

  it("reads stored lines and tracking defensively", () => {
    expect(itemsCell(null)).toBe("");
    expect(itemsCell([{ itemNumber: "A", quantity: 0 }, { itemNumber: "B", quantity: 3 }, "junk"])).toBe(
      "B x3",
    );
    expect(trackingCell({ latest: { carrier: "DHL", trackingNumber: "1" } })).toBe("DHL 1");
    expect(trackingCell("nonsense")).toBe("");
  });
});
