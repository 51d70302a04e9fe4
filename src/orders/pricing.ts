/**
 * What an order costs at the customer's agreed prices (the catalog's `price`, in the file's `currency`): each
 * line's unit price and line total, and the order's total, all exact (./money.ts). Null for a customer without
 * prices, which then sees no amounts anywhere. The customer file guarantees that once one item has a price every
 * item has (config/money-schema.ts); a line whose item is not in the catalog (or has no price) makes the order
 * unpriced too, rather than showing a total that leaves it out.
 */
import type { CatalogItem } from "../config/customer-schema.ts";
import { amountString } from "./currency.ts";
import { Decimal } from "./money.ts";

export interface PriceCatalog {
  item(itemNumber: string): Pick<CatalogItem, "price"> | undefined;
  readonly config: { readonly currency?: string | undefined };
}

export interface PricedLine {
  itemNumber: string;
  quantity: number;
  unitPrice: Decimal;
  lineTotal: Decimal;
}

export interface OrderPricing {
  /** ISO 4217. */
  currency: string;
  lines: PricedLine[];
  total: Decimal;
}

export interface PricingLine {
  itemNumber: string;
  quantity: number;
}

/** One unit's price of an item, or null when the customer has no prices (or the item none). */
export function unitPrice(catalog: PriceCatalog, itemNumber: string): Decimal | null {
  const price = catalog.item(itemNumber)?.price;
  return catalog.config.currency === undefined || price === undefined ? null : Decimal.parse(price);
}

/** The order's prices, or null when the customer has no prices or a line's item has none. */
export function priceOrder(lines: readonly PricingLine[], catalog: PriceCatalog): OrderPricing | null {
  const currency = catalog.config.currency;
  if (currency === undefined) return null;
  const priced: PricedLine[] = [];
  for (const line of lines) {
    const price = unitPrice(catalog, line.itemNumber);
    if (price === null || !Number.isSafeInteger(line.quantity) || line.quantity < 0) return null;
    priced.push({ ...line, unitPrice: price, lineTotal: price.times(line.quantity) });
  }
  return { currency, lines: priced, total: Decimal.sum(priced.map((l) => l.lineTotal)) };
}

/**
 * The lines of a draft as the modal holds them (quantities as typed): a line with no item yet or a quantity that
 * is not a whole number is left out, so the modal can show the total of what is already filled in.
 */
export function priceDraftLines(
  lines: readonly { itemNumber: string; quantity: string }[],
  catalog: PriceCatalog,
): OrderPricing | null {
  const usable = lines.flatMap((line) => {
    const quantity = line.quantity.trim();
    const itemNumber = line.itemNumber.trim();
    if (itemNumber === "" || !/^\d{1,9}$/.test(quantity)) return [];
    return [{ itemNumber, quantity: Number(quantity) }];
  });
  return priceOrder(usable, catalog);
}

/** A bundle's price: the sum of its lines at their prices; null without prices. */
export function bundlePrice(
  bundle: { readonly lines: readonly PricingLine[] },
  catalog: PriceCatalog,
): Decimal | null {
  return priceOrder(bundle.lines, catalog)?.total ?? null;
}

/** What an order row keeps of its pricing: the total in the currency's decimals, the currency, each unit price. */
export interface StoredPricing {
  total: string;
  currency: string;
  /** Each line's unit price, in the order of the request's lines. */
  linePrices: string[];
}

export function storedPricing(pricing: OrderPricing | null): StoredPricing | null {
  if (!pricing) return null;
  return {
    total: amountString(pricing.total, pricing.currency),
    currency: pricing.currency,
    linePrices: pricing.lines.map((l) => amountString(l.unitPrice, pricing.currency)),
  };
}
