/**
 * A budget's calendar month in the customer's time zone (`timeZone` in the customer file, UTC when absent): the
 * month an order counts in is the one its acceptance falls in there, so an order at 23:30 on 31 January in New York
 * (04:30 on 1 February UTC) counts in January for a customer in New York.
 */
import { calendarDateIn } from "../dates/business-days.ts";

export interface BudgetMonth {
  /** `2026-11` */
  label: string;
}

export function budgetMonth(at: Date, timeZone = "UTC"): BudgetMonth {
  return { label: calendarDateIn(at, timeZone).slice(0, 7) };
}
