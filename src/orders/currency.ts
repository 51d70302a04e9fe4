/**
 * Currencies (ISO 4217) and amounts written for people. The number of decimals a currency has (EUR 2, JPY 0,
 * BHD 3) comes from the runtime's ICU data, the same data that formats the amounts, so the two never disagree.
 */
import { Decimal } from "./money.ts";

const KNOWN = new Set(Intl.supportedValuesOf("currency"));

/** Whether `code` is an ISO 4217 currency code the runtime knows (`EUR`, `USD`), in capitals. */
export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && KNOWN.has(code);
}

/** The locale amounts are written in when the customer file names none. */
export const DEFAULT_LOCALE = "en";

/** Whether `locale` is a BCP 47 language tag (`en`, `de-DE`, `fr-CH`) the runtime can format numbers in. */
export function isLocale(locale: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([locale]).length > 0;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(currency: string, locale: string): Intl.NumberFormat {
  const key = `${locale} ${currency}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.NumberFormat(locale, { style: "currency", currency });
    formatters.set(key, found);
  }
  return found;
}

/** How many decimals `currency` has: 2 for EUR, 0 for JPY, 3 for BHD. */
export function minorUnits(currency: string): number {
  return formatter(currency, DEFAULT_LOCALE).resolvedOptions().maximumFractionDigits ?? 2;
}

/** The amount with exactly the currency's decimals, as stored and exported: `"1234.50"` for EUR. */
export function amountString(amount: Decimal | string, currency: string): string {
  const value = typeof amount === "string" ? Decimal.parse(amount) : amount;
  return value.toFixed(minorUnits(currency));
}

/**
 * The amount written for people in `locale`: `€1,234.50` (en), `1.234,50 €` (de). Intl formats the exact
 * decimal string, so no amount passes through a binary floating-point number on its way to the reader.
 */
export function formatMoney(amount: Decimal | string, currency: string, locale = DEFAULT_LOCALE): string {
  // Intl.NumberFormat reads a decimal string exactly (ES2023, "Intl.NumberFormat v3").
  return formatter(currency, locale).format(amountString(amount, currency) as `${number}`);
}
