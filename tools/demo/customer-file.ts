/**
 * The demo's customer file (the example's, with an approval rule by amount and lead times) and
 * the needed-by dates its orders carry, computed from the day it runs.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { addWorkingDays, calendarDateIn, type IsoDate } from "../../src/orders/dates/business-days.ts";
import { EXAMPLE_CUSTOMER_CONFIG } from "../world.ts";

/** The demo's lead time (business days from placement to delivery). */
const DEMO_LEAD_DAYS = 4;
/** Business days the sandbox slips the onboarding kit's estimate by (its `late` fault), before it recovers. */
export const DEMO_SLIP_DAYS = 10;

/**
 * The needed-by dates, from the demo's clock, such that the story is the same on any day at any hour:
 * - the onboarding kit (a workflow step, Home: the sandbox estimates 2–4 business days after shipping, shipped
 *   today or, near midnight, tomorrow) is needed 6 business days from today: in time when shipped, late once its
 *   estimate slips by DEMO_SLIP_DAYS, in time again when it recovers;
 * - alice's order is needed tomorrow: before the lead time's estimate (the modal warns; she submits anyway), and
 *   before any estimate of the sandbox's for a delivery at home (at least 2 business days), so it stays at risk
 *   until the compressed timeline delivers it.
 */
export function demoNeededBy(now: Date): { onboarding: IsoDate; warned: IsoDate } {
  const today = calendarDateIn(now, "UTC");
  const tomorrow = new Date(Date.parse(`${today}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return { onboarding: addWorkingDays(today, 6), warned: tomorrow };
}

/**
 * The example customer file (its prices and "Acme EU"'s monthly budget included) with an approval rule by amount:
 * an order over €3,500 needs mark's yes (the demo's shortcut order, six phones, is one; the starter kit is not),
 * and lead times: 4 business days, so the modal warns about an order needed sooner. Written next to the demo's
 * database.
 */
export async function demoCustomerConfig(dir: string, manager: string): Promise<string> {
  const example = await readFile(EXAMPLE_CUSTOMER_CONFIG, "utf8");
  const approval = [
    "    allowWorkflows: true",
    "    approval:",
    `      approvers: [${manager}]`,
    "      when:",
    "        - orderTotalOver: 3500",
    "",
  ].join("\n");
  const withApproval = example.replace("    allowWorkflows: true\n", approval);
  if (withApproval === example)
    throw new Error("the example customer file has no allowWorkflows line to extend");
  const file = join(dir, "order-desk.config.yml");
  await writeFile(file, `${withApproval}\nleadTimes:\n  default: ${DEMO_LEAD_DAYS}\n`);
  return file;
}
