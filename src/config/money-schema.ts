/**
 * Prices, the currency and the locale of the customer file, and where catalog items ship to
 * (docs/configuration.md, Prices). A price is read exactly (orders/money.ts): `12.50` in YAML is a number, and a
 * number is read through its shortest decimal form, which is what was written up to 15 significant digits; a
 * longer price has to be quoted, so that it is never silently rounded.
 */
import { z } from "zod";
import { isCurrencyCode, isLocale, minorUnits } from "../orders/currency.ts";
import { Decimal } from "../orders/money.ts";
import { isCountryCode } from "../supplier/countries.ts";

/** The most significant digits a JavaScript number keeps whatever its value. */
const EXACT_NUMBER_DIGITS = 15;

function significantDigits(value: number): number {
  const digits = Decimal.parse(value).units.toString().replace(/^-/, "").replace(/0+$/, "");
  return Math.max(digits.length, 1);
}

/** One unit's price: a non-negative decimal, as a number or a string; read as its exact decimal string. */
export const priceSchema = z
  .union([z.number(), z.string()], { error: "must be a decimal number such as 12.50" })
  .transform((value, ctx) => {
    const amount = Decimal.tryParse(value);
    if (amount === null) {
      ctx.addIssue({
        code: "custom",
        message: "must be a decimal number such as 12.50 (a dot, no separators)",
      });
      return z.NEVER;
    }
    if (typeof value === "number" && significantDigits(value) > EXACT_NUMBER_DIGITS) {
      ctx.addIssue({
        code: "custom",
        message: `has more than ${EXACT_NUMBER_DIGITS} digits: write it in quotes ("${value}") so it is read exactly`,
      });
      return z.NEVER;
    }
    if (amount.isNegative()) {
      ctx.addIssue({ code: "custom", message: "must not be negative" });
      return z.NEVER;
    }
    return amount.toString();
  });

export const currencySchema = z
  .string()
  .trim()
  .refine(isCurrencyCode, { error: "must be an ISO 4217 currency code in capitals, such as EUR or USD" });

export const localeSchema = z
  .string()
  .trim()
  .refine(isLocale, { error: "must be a language tag such as en, en-GB or de-DE" });

/** ISO 3166-1 alpha-2 codes, in capitals as the supplier takes them. */
export const shipsToSchema = z
  .array(
    z.string().trim().refine(isCountryCode, {
      error: "must be an ISO 3166-1 alpha-2 country code in capitals, such as US or DE",
    }),
  )
  .min(1, { error: "must list at least one country (leave the key out for an item that ships everywhere)" });

interface Issue {
  path: PropertyKey[];
  message: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What needs the whole file: a price needs a currency; a price may not have more decimals than the currency has;
 * once one item has a price, every item needs one (an order total that leaves lines out would understate what
 * is spent). Reads the raw file, so these are reported together with every other problem.
 */
export function moneyIssues(config: unknown): Issue[] {
  if (!isRecord(config) || !Array.isArray(config.catalog)) return [];
  const catalog = config.catalog.filter(isRecord);
  const priced = catalog.flatMap((item, i) => (item.price === undefined ? [] : [{ item, i }]));
  if (priced.length === 0) return [];
  const currency = typeof config.currency === "string" ? config.currency.trim() : undefined;
  if (currency === undefined) {
    return [
      {
        path: ["currency"],
        message:
          "required: the catalog has prices; name their ISO 4217 currency at the top level, such as currency: EUR",
      },
    ];
  }
  const issues: Issue[] = [];
  if (isCurrencyCode(currency)) {
    const decimals = minorUnits(currency);
    for (const { item, i } of priced) {
      const amount =
        typeof item.price === "number" || typeof item.price === "string"
          ? Decimal.tryParse(item.price)
          : null;
      if (amount && amount.decimals > decimals) {
        issues.push({
          path: ["catalog", i, "price"],
          message: `${amount.toString()} has ${amount.decimals} decimal${amount.decimals === 1 ? "" : "s"}; ${currency} has ${decimals === 0 ? "none" : decimals}`,
        });
      }
    }
  }
  const unpriced = catalog.flatMap((item) =>
    item.price === undefined ? [typeof item.itemNumber === "string" ? item.itemNumber : "?"] : [],
  );
  if (unpriced.length > 0) {
    const shown = unpriced.slice(0, 5).join(", ");
    const more = unpriced.length > 5 ? ` and ${unpriced.length - 5} more` : "";
    issues.push({
      path: ["catalog"],
      message: `every item needs a price once one has: ${shown}${more} ${unpriced.length === 1 ? "has" : "have"} none`,
    });
  }
  return issues;
}
