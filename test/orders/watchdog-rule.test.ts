/**
 * The watchdog's rule as a pure function (src/orders/watchdog/decide.ts) and its settings in the customer file:
 * which condition holds when, what puts each behind the order, when to look next; business days with weekends
 * and holidays around a month end and a year end; the day's end in the customer's time zone.
 */
import { describe, expect, it } from "vitest";
import { CustomerConfigError, parseCustomerConfig } from "../../src/config/customer.ts";
import { addBusinessDays, nextDayStart } from "../../src/orders/watchdog/business-days.ts";
import {
  checkWatchdog,
  deadlines,
  type WatchdogOrder,
  type WatchdogRules,
  watchdogRulesOf,
} from "../../src/orders/watchdog/decide.ts";

const MINIMAL = `
adminChannel: C0ITADMIN
catalog:
  - { itemNumber: LAP-1, name: Laptop, category: Laptops, keywords: [laptop] }
profiles:
  - name: Acme
    channels: [C0HELPDESK]
    invoice: { id: INV-1 }
    allowedUsers: [U0AGENT01]
`;

const RULES: WatchdogRules = {
  acceptedWithinHours: 24,
  shippedWithinDays: 1,
  deliveredWithinDays: 2,
  holidays: [],
};

// Placed Tue 1 Dec 2026 09:00 UTC, expected Tue 8 Dec: ships Mon 7 Dec.
const PLACED = new Date("2026-12-01T09:00:00Z");
const order = (over: Partial<WatchdogOrder> = {}): WatchdogOrder => ({
  status: "received",
  heardFromSupplier: false,
  placedAt: PLACED,
  expectedDelivery: "2026-12-08",
  ...over,
});

describe("the watchdog's settings", () => {
  it("defaults to 24 hours, 1 and 2 business days", () => {
    expect(parseCustomerConfig(MINIMAL).watchdog).toEqual({
      acceptedWithinHours: 24,
      shippedWithinDays: 1,
      deliveredWithinDays: 2,
    });
  });

  it("takes its keys and refuses unknown ones and bad values, every problem at once", () => {
    expect(
      parseCustomerConfig(`${MINIMAL}watchdog: { acceptedWithinHours: 4, deliveredWithinDays: 0 }\n`)
        .watchdog,
    ).toEqual({ acceptedWithinHours: 4, shippedWithinDays: 1, deliveredWithinDays: 0 });
    let problems: string[] = [];
    try {
      parseCustomerConfig(
        `${MINIMAL}watchdog: { acceptedWithinHour: 4, shippedWithinDays: -1, deliveredWithinDays: 1.5 }\n`,
      );
    } catch (error) {
      expect(error).toBeInstanceOf(CustomerConfigError);
      problems = [...(error as CustomerConfigError).problems];
    }
    const text = problems.join("\n");
    expect(text).toContain("acceptedWithinHour");
    expect(text).toMatch(/shippedWithinDays.*0 or more/);
    expect(text).toMatch(/deliveredWithinDays.*whole number/);
  });

  it("reads the holidays and time zone of the file with them", () => {
    const config = parseCustomerConfig(`${MINIMAL}holidays: [2026-12-25]\ntimeZone: Europe/Amsterdam\n`);
    expect(watchdogRulesOf(config)).toEqual({
      ...RULES,
      holidays: ["2026-12-25"],
      timeZone: "Europe/Amsterdam",
    });
  });
});

describe("the watchdog's rule", () => {
  it("not accepted: placed, and not a word from the supplier acceptedWithinHours later", () => {
    const before = checkWatchdog(order(), new Date("2026-12-02T08:59:59Z"), RULES);
    expect(before.holding).toEqual([]);
    expect(before.nextCheckAt).toEqual(new Date("2026-12-02T09:00:00Z"));
    const after = checkWatchdog(order(), new Date("2026-12-02T09:00:00Z"), RULES);
    expect(after.holding.map((h) => [h.condition, h.since.toISOString()])).toEqual([
      ["not_accepted", "2026-12-02T09:00:00.000Z"],
    ]);
    // Any supplier event, or a status only the supplier sets, puts it behind the order.
    for (const heard of [order({ heardFromSupplier: true }), order({ status: "validated" })]) {
      const verdict = checkWatchdog(heard, new Date("2026-12-03T00:00:00Z"), RULES);
      expect(verdict.holding).toEqual([]);
      expect(verdict.over).toEqual(["not_accepted"]);
      // Next: the end of the day after the ship date (Mon 7 Dec + 1 business day = Tue 8 Dec, over at Wed 00:00).
      expect(verdict.nextCheckAt).toEqual(new Date("2026-12-09T00:00:00Z"));
    }
  });

  it("not shipped: past the expected ship date (expected delivery − 1 business day) + shippedWithinDays", () => {
    const heard = order({ status: "in_fulfilment", heardFromSupplier: true });
    expect(deadlines(heard, RULES).not_shipped).toEqual({
      condition: "not_shipped",
      since: new Date("2026-12-09T00:00:00Z"),
      expected: "2026-12-07",
    });
    expect(checkWatchdog(heard, new Date("2026-12-08T23:59:59Z"), RULES).holding).toEqual([]);
    expect(
      checkWatchdog(heard, new Date("2026-12-09T00:00:00Z"), RULES).holding.map((h) => h.condition),
    ).toEqual(["not_shipped"]);
    // Not delivered is not watched before it ships: "not shipped" says it.
    expect(
      checkWatchdog(heard, new Date("2027-01-30T00:00:00Z"), RULES).holding.map((h) => h.condition),
    ).toEqual(["not_shipped"]);
  });

  it("not delivered: shipped, past the latest estimate + deliveredWithinDays; delivered or cancelled ends it all", () => {
    const shipped = order({ status: "shipped", heardFromSupplier: true });
    const verdict = checkWatchdog(shipped, new Date("2026-12-10T12:00:00Z"), RULES);
    expect(verdict.over).toEqual(["not_accepted", "not_shipped"]);
    expect(verdict.holding).toEqual([]);
    // Tue 8 Dec + 2 business days = Thu 10 Dec, over at Fri 11 Dec 00:00.
    expect(verdict.nextCheckAt).toEqual(new Date("2026-12-11T00:00:00Z"));
    expect(
      checkWatchdog(shipped, new Date("2026-12-11T00:00:00Z"), RULES).holding.map((h) => h.condition),
    ).toEqual(["not_delivered"]);
    for (const status of ["delivered", "cancelled"] as const) {
      const ended = checkWatchdog(
        order({ status, heardFromSupplier: true }),
        new Date("2027-06-01T00:00:00Z"),
        RULES,
      );
      expect(ended.holding).toEqual([]);
      expect(ended.over).toEqual(["not_accepted", "not_shipped", "not_delivered"]);
      expect(ended.nextCheckAt).toBeNull();
    }
  });

  it("without an expected delivery only 'not accepted' is watched; an order not with the supplier, nothing", () => {
    const noDate = checkWatchdog(
      order({ expectedDelivery: null, status: "validated" }),
      new Date("2027-01-01"),
      RULES,
    );
    expect(noDate).toEqual({ holding: [], over: ["not_accepted"], nextCheckAt: null });
    for (const status of ["failed", "awaiting_approval", "placing"] as const) {
      expect(checkWatchdog(order({ status }), new Date("2027-01-01"), RULES)).toEqual({
        holding: [],
        over: [],
        nextCheckAt: null,
      });
    }
  });

  it("counts business days over weekends and holidays around a month end and a year end", () => {
    const holidays = ["2026-12-25", "2026-12-28", "2027-01-01"];
    // Expected Mon 4 Jan 2027: the business day before is Thu 31 Dec (Fri 1 Jan is a holiday).
    const rules = { ...RULES, holidays };
    const d = deadlines(order({ expectedDelivery: "2027-01-04" }), rules);
    expect(d.not_shipped?.expected).toBe("2026-12-31");
    // Thu 31 Dec + 1 business day = Mon 4 Jan (Fri 1 Jan holiday, weekend): over at Tue 5 Jan 00:00.
    expect(d.not_shipped?.since).toEqual(new Date("2027-01-05T00:00:00Z"));
    // Thu 24 Dec + 2 business days skips Fri 25 (holiday), the weekend and Mon 28 (holiday): Wed 30 Dec.
    expect(addBusinessDays("2026-12-24", 2, holidays)).toBe("2026-12-30");
    expect(addBusinessDays("2026-12-29", -1, holidays)).toBe("2026-12-24");
    // A month end: Fri 30 Oct + 1 = Mon 2 Nov.
    expect(addBusinessDays("2026-10-30", 1, [])).toBe("2026-11-02");
    expect(addBusinessDays("2026-11-02", -1, [])).toBe("2026-10-30");
  });

  it("a day ends at midnight in the customer's time zone", () => {
    expect(nextDayStart("2026-12-08")).toEqual(new Date("2026-12-09T00:00:00Z"));
    expect(nextDayStart("2026-12-08", "Europe/Amsterdam")).toEqual(new Date("2026-12-08T23:00:00Z"));
    expect(nextDayStart("2026-07-08", "America/New_York")).toEqual(new Date("2026-07-09T04:00:00Z"));
    // The night the clocks go forward in Amsterdam (29 Mar 2026): the next day still starts at its midnight.
    expect(nextDayStart("2026-03-28", "Europe/Amsterdam")).toEqual(new Date("2026-03-28T23:00:00Z"));
    expect(nextDayStart("2026-03-29", "Europe/Amsterdam")).toEqual(new Date("2026-03-29T22:00:00Z"));
  });
});
