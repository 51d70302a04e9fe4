/**
 * The warning before placing: the order's needed-by date is before its expected delivery. Shown once on the date
 * field; submitting again unchanged (same date, same expectation, same order type) places it, at risk from the
 * start. When the customer file names an express order type that would arrive in time, the warning offers it.
 */
import { COUNTRIES, isCountryCode } from "../../supplier/countries.ts";
import type { CreateOrderRequest } from "../../supplier/schema.ts";
import { formatDay, type IsoDate } from "./business-days.ts";
import {
  customerToday,
  type DatesConfig,
  type Expectation,
  expectDelivery,
  expectExpress,
  isLate,
  type LeadTime,
} from "./lead-time.ts";

export interface LateWarning {
  /** What the agent acknowledges by submitting again: the needed-by date, the expectation and the order type. */
  key: string;
  text: string;
  expected: Expectation;
  /** The express order would arrive in time: the form offers it. */
  expressOffered: boolean;
}

const SHORT: Record<string, string> = { US: "the US", GB: "the UK" };

function where(country: string): string {
  const name = SHORT[country] ?? (isCountryCode(country) ? COUNTRIES[country] : country);
  return `to ${/^(United|Netherlands|Philippines)|Republic$|Islands$/.test(name) ? "the " : ""}${name}`;
}

/** "Usually delivered in 7 business days to the US" */
export function leadTimeWords(lead: LeadTime): string {
  const days = `${lead.days} business day${lead.days === 1 ? "" : "s"}`;
  switch (lead.reason.kind) {
    case "country":
      return `Usually delivered in ${days} ${where(lead.reason.country)}`;
    case "item":
      return `${lead.reason.itemNumber} usually takes ${days} to deliver`;
    case "express":
      return `${lead.reason.type} orders usually arrive in ${days}`;
    default:
      return `Usually delivered in ${days}`;
  }
}

/** The warning for a form's order, or null when it is expected in time (or nothing is known). */
export function lateWarning(
  config: DatesConfig,
  neededBy: IsoDate | undefined,
  request: CreateOrderRequest,
  at: Date,
): LateWarning | null {
  const needed = neededBy?.trim() || null;
  const expected = expectDelivery(config, request, at);
  if (!expected || !isLate(expected.date, needed)) return null;
  const today = customerToday(config, at);
  const express = expectExpress(config, request, at);
  const expressOffered = express !== null && !isLate(express.date, needed);
  const offer =
    express && expressOffered
      ? ` Or tick "Use ${config.expressOrderType?.type} (${express.lead.days} business days)": expected ${formatDay(express.date, today)}.`
      : "";
  return {
    key: `${needed}|${expected.date}|${request.type}`,
    text: `${leadTimeWords(expected.lead)}: expected ${formatDay(expected.date, today)}, after the needed-by date. Submit anyway or change the date.${offer}`,
    expected,
    expressOffered,
  };
}
