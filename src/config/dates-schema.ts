/**
 * The customer file's dates: lead times in business days, the holidays those skip, an express order type with
 * its own lead time, and the customer's time zone ("today" for a needed-by date, the day an order is placed).
 * Documented in docs/configuration.md ("Dates and lead times").
 */
import { isValid } from "date-fns/isValid";
import { parseISO } from "date-fns/parseISO";
import { z } from "zod";

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date written YYYY-MM-DD that exists (no 2026-02-30). */
export const isoDateSchema = z
  .string({ error: "must be a date written YYYY-MM-DD" })
  .refine((s) => ISO_DATE.test(s) && isValid(parseISO(s)) && parseISO(s).getDate() === Number(s.slice(8)), {
    error: "must be a date written YYYY-MM-DD, such as 2026-12-24",
  });

const businessDays = z
  .int({ error: "must be a whole number of business days" })
  .min(0, { error: "must be 0 or more business days" })
  .max(260, { error: "must be at most 260 business days (about a year)" });

export const leadTimesSchema = z
  .strictObject({
    /** Business days from placement to delivery when neither the country nor an item says otherwise. */
    default: businessDays,
    /** By the shipping country (ISO 3166-1 alpha-2). */
    countries: z.record(z.string(), businessDays).default({}),
    /** By item number; an item that takes longer than its country wins. */
    items: z.record(z.string(), businessDays).default({}),
  })
  .superRefine((lead, ctx) => {
    for (const country of Object.keys(lead.countries)) {
      if (!/^[A-Z]{2}$/.test(country))
        ctx.addIssue({
          code: "custom",
          path: ["countries", country],
          message: "must be a two-letter country code in capitals, such as US",
        });
    }
  });

export const expressOrderTypeSchema = z.strictObject({
  /** The supplier's agreed order type for express orders. */
  type: z.string().trim().min(1, { error: "must not be empty" }),
  leadTimeDays: businessDays,
});

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const timeZoneSchema = z
  .string()
  .trim()
  .refine(isTimeZone, { error: "must be an IANA time zone such as Europe/Amsterdam or America/New_York" });

/** The top-level keys these add to the customer file. */
export const datesKeys = {
  leadTimes: leadTimesSchema.optional(),
  holidays: z.array(isoDateSchema).default([]),
  expressOrderType: expressOrderTypeSchema.optional(),
  /** Where "today" is; default UTC. */
  timeZone: timeZoneSchema.optional(),
};

/** `neededBy: required` in a profile: every order with it must say by when. */
export const neededByModeSchema = z
  .enum(["optional", "required"], { error: "must be optional (the default) or required" })
  .default("optional");

export type LeadTimes = z.output<typeof leadTimesSchema>;
export type ExpressOrderType = z.output<typeof expressOrderTypeSchema>;

/** Lead times for items the catalog does not have are a typo: listed with the file's other problems. */
export function leadTimeItemIssues(config: {
  leadTimes?: LeadTimes | undefined;
  catalog: ReadonlyArray<{ itemNumber: string }>;
}): { path: (string | number)[]; message: string }[] {
  const known = new Set(config.catalog.map((i) => i.itemNumber));
  return Object.keys(config.leadTimes?.items ?? {})
    .filter((item) => !known.has(item))
    .map((item) => ({ path: ["leadTimes", "items", item], message: `${item} is not in the catalog` }));
}
