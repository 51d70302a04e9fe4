/**
 * The dates a new order is stored with: its needed-by date, the expected delivery from the lead times (as of the
 * moment it is accepted), and whether that already misses the needed-by date (at risk from the start).
 */
import type { CreateOrderRequest } from "../../supplier/schema.ts";
import type { OrderDraft } from "../draft.ts";
import type { ExpectedDeliverySource } from "../model/order.ts";
import { type DatesConfig, type Expectation, expectDelivery, isLate } from "./lead-time.ts";

export interface NewOrderDates {
  neededBy: string | null;
  expectedDelivery: string | null;
  expectedDeliverySource: ExpectedDeliverySource | null;
  /** Expected after the needed-by date already when placed. */
  atRisk: boolean;
  expectation: Expectation | null;
}

export function newOrderDates(
  config: DatesConfig,
  draft: Pick<OrderDraft, "neededBy">,
  request: CreateOrderRequest,
  at: Date,
): NewOrderDates {
  const neededBy = draft.neededBy?.trim() || null;
  const expectation = expectDelivery(config, request, at);
  return {
    neededBy,
    expectedDelivery: expectation?.date ?? null,
    expectedDeliverySource: expectation ? "lead_time" : null,
    atRisk: isLate(expectation?.date ?? null, neededBy),
    expectation,
  };
}

/** The `NewOrder` fields of `dates`. */
export function storedDates(dates: NewOrderDates) {
  return {
    neededBy: dates.neededBy,
    expectedDelivery: dates.expectedDelivery,
    expectedDeliverySource: dates.expectedDeliverySource,
  };
}
