/**
 * The day-one story's dates on any day and at any hour, without running it: what `npm run demo` and
 * test/orders/needed-by-e2e.test.ts assert, worked out by the functions that decide it (the demo's needed-by
 * dates, Order Desk's lead-time expectation and at-risk rule, the sandbox's plan of a late order) for the world's
 * clock standing at every third hour of five weeks, a minute before midnight, and on a Friday before a holiday.
 * Those runs start their clock at the latest noon UTC (tools/world-clock.ts), so the day cannot turn during them;
 * this shows the day they start on does not matter either.
 */
import { describe, expect, it } from "vitest";
import { addWorkingDays, calendarDateIn } from "../../src/orders/dates/business-days.ts";
import { type DatesConfig, expectDelivery, isLate } from "../../src/orders/dates/lead-time.ts";
import { riskChange } from "../../src/orders/dates/review.ts";
import { planFulfilment } from "../../src/sandbox/fulfilment.ts";
import { createRandom } from "../../src/sandbox/random.ts";
import type { ShippingUpdatedData } from "../../src/supplier/events.ts";
import { checkOrderRequest } from "../../src/supplier/rules.ts";
import type { CreateOrderRequest, DeliveryAt } from "../../src/supplier/schema.ts";
import { DEMO_SLIP_DAYS, demoNeededBy } from "../../tools/demo/customer-file.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The demo's and the e2e test's lead time (business days). */
const LEAD_DAYS = 4;
/** The demo's onboarding kit (the "Remote starter kit" bundle) and the single laptop of the other orders. */
const KIT = ["LAP-14-PRO", "MON-27-4K", "DOCK-USBC", "KB-WL-US", "MOUSE-WL", "HS-ANC"];
const LAPTOP = ["LAP-14-PRO"];
/** Plans per instant: enough for every transit time and parcel split the sandbox draws. */
const SEEDS = 24;

function request(number: string, deliveryAt: DeliveryAt, items: readonly string[]): CreateOrderRequest {
  const checked = checkOrderRequest({
    externalDocumentNumber: number,
    customerReference: "ONB-7",
    invoice: { id: "INV-ACME-01" },
    consignee: null,
    shipping: {
      deliveryAt,
      companyName: "Acme BV",
      contact: {
        firstName: "Nina",
        lastName: "Newhire",
        phoneNumber: "+31 6 1234 5678",
        email: "n@example.com",
      },
      address1: "Keizersgracht 1",
      city: "Amsterdam",
      zipCode: "1015 CJ",
      countryIso2: "NL",
    },
    orderLines: items.map((itemNumber) => ({ itemNumber, quantity: 1 })),
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.details));
  return checked.value;
}

/** The estimates the sandbox sends for an order accepted at `acceptedAt`, in order. */
function estimates(
  acceptedAt: number,
  req: CreateOrderRequest,
  seed: number,
  late: boolean,
): ShippingUpdatedData[] {
  const plan = planFulfilment(
    {
      correlationId: "0b6f7f5e-8a0c-4f53-9a52-2f4f3b1f0c11",
      request: req,
      acceptedAt,
      trackingUrl: () => "http://t.test/",
      fault: late ? { late: { slipDays: DEMO_SLIP_DAYS, recovers: true } } : undefined,
    },
    createRandom(`story-${seed}`, "default", req.externalDocumentNumber, "plan"),
  );
  return plan.flatMap((s) => (s.type === "order.shipping_updated" ? [s.data as ShippingUpdatedData] : []));
}

/** What Order Desk tells an order needed by `neededBy`, estimate by estimate: its at-risk and back-on-track notices. */
function notices(updates: ShippingUpdatedData[], neededBy: string, atRiskWhenPlaced: boolean): string[] {
  const newest = new Map<number, string>();
  let atRisk = atRiskWhenPlaced;
  const told: string[] = atRiskWhenPlaced ? ["at_risk"] : [];
  for (const u of updates) {
    newest.set(u.parcel.number, u.estimatedDelivery as string);
    const expected = [...newest.values()].sort().at(-1) ?? null;
    const change = riskChange(atRisk, expected, neededBy);
    if (change === null) continue;
    told.push(change);
    atRisk = change === "at_risk";
  }
  return told;
}

/** The story at the world's time `at`, for a customer file with `holidays`; every problem found. */
function storyProblems(at: number, holidays: readonly string[] = []): string[] {
  const problems: string[] = [];
  const config: DatesConfig = { leadTimes: { default: LEAD_DAYS, countries: {}, items: {} }, holidays };
  const now = new Date(at);
  const today = calendarDateIn(now, "UTC");
  const { onboarding, warned } = demoNeededBy(now);
  const stamp = `${now.toISOString()} (${today})`;
  const expected = (req: CreateOrderRequest) => expectDelivery(config, req, now)?.date ?? null;

  // The onboarding kit (demo) and ONB-7 (e2e): in time when placed, late while it slips, in time again.
  const e2eNeededBy = addWorkingDays(today, 6);
  if (e2eNeededBy !== onboarding) problems.push(`${stamp}: the e2e test and the demo disagree on 6 days`);
  const cases = [
    { name: "the onboarding kit", items: KIT },
    { name: "ONB-7", items: LAPTOP },
  ];
  for (const { name, items } of cases) {
    const req = request(`ONB-7-${name.length}`, "Home", items);
    if (isLate(expected(req), onboarding)) problems.push(`${stamp}: ${name} warned in the form`);
    for (let seed = 0; seed < SEEDS; seed++) {
      const told = notices(estimates(at, req, seed, true), onboarding, false);
      if (told.join() !== "at_risk,back_on_track")
        problems.push(`${stamp}: ${name} (seed ${seed}) told ${told}`);
    }
  }

  // alice's order (demo), needed tomorrow: warned in the form, at risk once placed, and never back in time.
  // ONB-8 (e2e), needed in 2 business days: warned, at risk once placed (its fulfilment is silent).
  const laptop = request("HD-1042-1", "Home", LAPTOP);
  if (!(warned > today)) problems.push(`${stamp}: alice's date is not after today`);
  if (!isLate(expected(laptop), warned)) problems.push(`${stamp}: alice not warned`);
  if (!isLate(expected(laptop), addWorkingDays(today, 2))) problems.push(`${stamp}: ONB-8 not warned`);
  for (let seed = 0; seed < SEEDS; seed++) {
    const told = notices(estimates(at, laptop, seed, false), warned, true);
    if (told.join() !== "at_risk") problems.push(`${stamp}: alice's order (seed ${seed}) told ${told}`);
  }
  return problems;
}

describe("the day-one story's dates", () => {
  it("come out as the demo and the e2e test say, whatever the day and hour of the world's clock", () => {
    const start = Date.parse("2026-11-02T00:00:00Z");
    const problems: string[] = [];
    for (let at = start; at < start + 35 * DAY; at += 3 * HOUR) problems.push(...storyProblems(at));
    // A minute before midnight: the supplier ships the next day, on its own calendar.
    for (let day = 0; day < 7; day++) problems.push(...storyProblems(start + day * DAY + DAY - 60_000));
    expect(problems).toEqual([]);
  });

  it("hold on a Friday before a holiday in the customer file (the sandbox knows no holidays)", () => {
    const friday = Date.parse("2026-12-04T12:00:00Z");
    expect(new Date(friday).getUTCDay()).toBe(5);
    expect(storyProblems(friday, ["2026-12-07"])).toEqual([]);
    expect(storyProblems(friday - 60_000 + 12 * HOUR, ["2026-12-07"])).toEqual([]);
  });
});
