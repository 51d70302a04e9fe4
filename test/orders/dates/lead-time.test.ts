import { describe, expect, it } from "vitest";
import { CustomerConfigError, parseCustomerConfig } from "../../../src/config/customer.ts";
import {
  addWorkingDays,
  calendarDateIn,
  calendarDaysBetween,
  formatDay,
} from "../../../src/orders/dates/business-days.ts";
import { expectDelivery, expectExpress, isLate, leadTimeFor } from "../../../src/orders/dates/lead-time.ts";
import { neededByProblem } from "../../../src/orders/dates/needed-by.ts";

const BASE = `
adminChannel: C0ITADMIN
catalog:
  - { itemNumber: LAP-1, name: Laptop }
  - { itemNumber: MON-27-4K, name: Monitor }
profiles:
  - name: Acme
    channels: [C0HELPDESK]
    invoice: { id: INV-1 }
    allowedUsers: [U0AGENT01]
`;

function problems(yaml: string): string[] {
  try {
    parseCustomerConfig(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(CustomerConfigError);
    return [...(error as CustomerConfigError).problems];
  }
  throw new Error("expected the file to be refused");
}

const request = (country: string, items: string[], type = "New") => ({
  type,
  shipping: { countryIso2: country },
  orderLines: items.map((itemNumber) => ({
    itemNumber,
    quantity: 1,
    customerReference: null,
    comments: null,
    lineRef1: null,
    lineRef2: null,
    lineRef3: null,
    lineRef4: null,
  })),
});

const DATES = {
  leadTimes: { default: 5, countries: { US: 7 }, items: { "MON-27-4K": 8 } },
  holidays: ["2026-12-25", "2026-12-28", "2027-01-01"],
  expressOrderType: { type: "Express", leadTimeDays: 2 },
};

describe("business days", () => {
  it("skips weekends around a month end", () => {
    // Fri 27 Nov 2026 + 1 = Mon 30 Nov; + 2 = Tue 1 Dec.
    expect(addWorkingDays("2026-11-27", 1)).toBe("2026-11-30");
    expect(addWorkingDays("2026-11-27", 2)).toBe("2026-12-01");
    // Placed on a Saturday: the first business day is Monday.
    expect(addWorkingDays("2026-11-28", 1)).toBe("2026-11-30");
  });

  it("skips weekends and holidays around a year end", () => {
    // Wed 23 Dec + 5: Thu 24, (Fri 25 holiday, weekend, Mon 28 holiday) Tue 29, Wed 30, Thu 31, (Fri 1 Jan holiday) Mon 4.
    expect(addWorkingDays("2026-12-23", 5, DATES.holidays)).toBe("2027-01-04");
    expect(addWorkingDays("2026-12-23", 5)).toBe("2026-12-30");
    // 0 days on a holiday: the next business day.
    expect(addWorkingDays("2026-12-25", 0, DATES.holidays)).toBe("2026-12-29");
  });

  it("takes today in the customer's time zone, and formats days as people say them", () => {
    const lateEvening = new Date("2026-12-01T23:30:00Z");
    expect(calendarDateIn(lateEvening, "UTC")).toBe("2026-12-01");
    expect(calendarDateIn(lateEvening, "Europe/Amsterdam")).toBe("2026-12-02");
    expect(calendarDateIn(lateEvening, "America/New_York")).toBe("2026-12-01");
    expect(formatDay("2026-12-09")).toBe("Wed 9 Dec");
    expect(formatDay("2027-01-04", "2026-12-01")).toBe("Mon 4 Jan 2027");
    expect(calendarDaysBetween("2026-12-07", "2026-12-10")).toBe(3);
  });
});

describe("lead times", () => {
  const config = { ...DATES };

  it("uses the US lead time for the US and the default elsewhere", () => {
    expect(leadTimeFor(config, request("US", ["LAP-1"]))).toEqual({
      days: 7,
      reason: { kind: "country", country: "US" },
    });
    expect(leadTimeFor(config, request("NL", ["LAP-1"]))).toEqual({ days: 5, reason: { kind: "default" } });
    // Mon 30 Nov + 7 business days = Wed 9 Dec; + 5 = Mon 7 Dec.
    const at = new Date("2026-11-30T10:00:00Z");
    expect(expectDelivery(config, request("US", ["LAP-1"]), at)?.date).toBe("2026-12-09");
    expect(expectDelivery(config, request("NL", ["LAP-1"]), at)?.date).toBe("2026-12-07");
  });

  it("lets an item that takes longer win, and an express order take the express time", () => {
    expect(leadTimeFor(config, request("US", ["LAP-1", "MON-27-4K"]))).toEqual({
      days: 8,
      reason: { kind: "item", itemNumber: "MON-27-4K" },
    });
    const at = new Date("2026-11-30T10:00:00Z");
    expect(expectExpress(config, request("US", ["MON-27-4K"]), at)?.date).toBe("2026-12-02");
    expect(expectExpress({ holidays: [] }, request("US", ["LAP-1"]), at)).toBeNull();
  });

  it("has no estimate without lead times, and is late only after the needed-by date", () => {
    expect(expectDelivery({ holidays: [] }, request("US", ["LAP-1"]), new Date())).toBeNull();
    expect(isLate("2026-12-09", "2026-12-07")).toBe(true);
    expect(isLate("2026-12-07", "2026-12-07")).toBe(false);
    expect(isLate(null, "2026-12-07")).toBe(false);
  });
});

describe("needed by as given", () => {
  const rules = { today: "2026-11-27", required: false };

  it("refuses today, the past, garbage, other formats and the far future, naming the field", () => {
    expect(neededByProblem("", rules)).toBeNull();
    expect(neededByProblem("2026-12-07", rules)).toBeNull();
    expect(neededByProblem("", { ...rules, required: true })).toMatch(/this profile asks/);
    for (const past of ["2026-11-27", "2026-11-26", "1999-01-01"]) {
      expect(neededByProblem(past, rules)).toMatch(/after today/);
    }
    for (const garbage of [
      "07/12/2026",
      "2026-13-01",
      "2026-02-30",
      "tomorrow",
      "2026-12-7",
      "99999-01-01",
    ]) {
      expect(neededByProblem(garbage, rules)).toMatch(/^Needed by must be a date written YYYY-MM-DD/);
    }
    expect(neededByProblem("2031-01-01", rules)).toMatch(/more than two years/);
  });
});

describe("the customer file's dates", () => {
  it("reads leadTimes, holidays, expressOrderType, timeZone and neededBy: required", () => {
    const config = parseCustomerConfig(`${BASE}    neededBy: required
leadTimes: { default: 5, countries: { US: 7 }, items: { MON-27-4K: 8 } }
holidays: [2026-12-25, 2027-01-01]
expressOrderType: { type: Express, leadTimeDays: 2 }
timeZone: Europe/Amsterdam
`);
    expect(config.leadTimes).toEqual({ default: 5, countries: { US: 7 }, items: { "MON-27-4K": 8 } });
    expect(config.holidays).toEqual(["2026-12-25", "2027-01-01"]);
    expect(config.expressOrderType).toEqual({ type: "Express", leadTimeDays: 2 });
    expect(config.profiles[0]?.neededBy).toBe("required");
    const plain = parseCustomerConfig(BASE);
    expect(plain.leadTimes).toBeUndefined();
    expect(plain.holidays).toEqual([]);
    expect(plain.profiles[0]?.neededBy).toBe("optional");
  });

  it("lists every problem at once and rejects unknown keys", () => {
    const found = problems(`${BASE}    neededBy: always
leadTimes: { default: -1, countries: { usa: 7 }, items: { NOPE-1: 8 }, weekend: true }
holidays: [2026-12-32, "25/12/2026"]
expressOrderType: { type: Express, leadTimeDays: 1.5 }
timeZone: Mars/Olympus
`).join("\n");
    expect(found).toMatch(/neededBy.*optional \(the default\) or required/);
    expect(found).toMatch(/leadTimes\.default.*0 or more/);
    expect(found).toMatch(/usa.*two-letter country code/);
    expect(found).toMatch(/weekend/);
    expect(found).toMatch(/holidays\[0\].*YYYY-MM-DD/);
    expect(found).toMatch(/holidays\[1\].*YYYY-MM-DD/);
    expect(found).toMatch(/leadTimeDays.*whole number/);
    expect(found).toMatch(/timeZone.*IANA/);
  });

  it("names lead times for items not in the catalog", () => {
    const found = problems(`${BASE}leadTimes: { default: 5, items: { NOPE-1: 8 } }\n`).join("\n");
    expect(found).toMatch(/leadTimes\.items\.NOPE-1.*not in the catalog/);
  });
});
