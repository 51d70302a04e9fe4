/**
 * The needed-by date as given (the modal's date picker, the workflow step's `needed_by`): a real date written
 * YYYY-MM-DD, after today where the customer is, and not absurdly far off. Pure: today is passed in.
 */
import { isoDateSchema } from "../../config/dates-schema.ts";
import { addWorkingDays, calendarDaysBetween, type IsoDate } from "./business-days.ts";

/** Further than this is a typo (2062 for 2026), not a plan. */
export const MAX_NEEDED_BY_DAYS = 2 * 366;

export interface NeededByRules {
  today: IsoDate;
  /** The profile says `neededBy: required`. */
  required: boolean;
}

/** What is wrong with `raw` ("" when not given), or null when it is acceptable. */
export function neededByProblem(raw: string, rules: NeededByRules): string | null {
  const value = raw.trim();
  if (value === "") {
    return rules.required
      ? "Choose the date it is needed by: this profile asks for one on every order."
      : null;
  }
  if (!isoDateSchema.safeParse(value).success) {
    return `Needed by must be a date written YYYY-MM-DD, such as ${addWorkingDays(rules.today, 10)}; "${value.slice(0, 40)}" is not.`;
  }
  if (value <= rules.today) {
    return "Needed by must be after today: nothing can be delivered by then. Choose a later date.";
  }
  if (calendarDaysBetween(rules.today, value) > MAX_NEEDED_BY_DAYS) {
    return "Needed by is more than two years away; check the year.";
  }
  return null;
}
