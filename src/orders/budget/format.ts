/** Amounts in budget messages, through the money module (../money.ts, ../currency.ts): exact, never a float. */
import { formatMoney } from "../currency.ts";
import { Decimal } from "../money.ts";

/** An amount for people ("€20,000.00"), in the customer file's `locale` (default English). */
export function moneyText(amount: string, currency: string, locale?: string): string {
  return formatMoney(amount, currency, locale);
}

/** `a > b`, both exact decimal strings. */
export function isMoreThan(a: string, b: string): boolean {
  return Decimal.parse(a).compare(Decimal.parse(b)) > 0;
}
