/**
 * Amounts as people read them in Slack: the order's stored total and unit prices written for its currency in the
 * customer's locale (orders/currency.ts). Every function answers null or "" for an order without prices, so a
 * customer without prices sees no amounts anywhere.
 */
import { formatMoney } from "../../orders/currency.ts";
import type { Order } from "../../orders/model/order.ts";
import { Decimal } from "../../orders/money.ts";
import type { OrderPricing } from "../../orders/pricing.ts";

type Priced = Pick<Order, "total" | "currency" | "linePrices">;

/** `€2,599.80`, or null for an order without prices. */
export function orderTotalText(order: Priced, locale?: string): string | null {
  if (order.total == null || order.currency == null) return null;
  return formatMoney(order.total, order.currency, locale);
}

/** ` · €1,249.90 each, €2,499.80` after a line of an order with prices; "" otherwise. */
export function linePriceText(order: Priced, index: number, quantity: number, locale?: string): string {
  const unit = order.linePrices?.[index];
  if (unit === undefined || order.currency == null) return "";
  const each = formatMoney(unit, order.currency, locale);
  if (quantity === 1) return ` · ${each}`;
  return ` · ${each} each, ${formatMoney(Decimal.parse(unit).times(quantity), order.currency, locale)}`;
}

/** The modal's running total of what is filled in so far. */
export function draftTotalText(pricing: OrderPricing, locale?: string): string {
  return formatMoney(pricing.total, pricing.currency, locale);
}
