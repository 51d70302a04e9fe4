/**
 * Finding orders for the people who ask about them in Slack: a button names one by id, `/order status` by its
 * ticket or order number, App Home lists a requester's latest. Slack's listeners read orders through these, never
 * through the store's repositories (test/architecture.test.ts): slack/ stays transport and presentation, and a
 * change to how orders are found is made here, not in each listener.
 */
import type { Queryable } from "../store/db.ts";
import { findOrdersByReference } from "../store/repositories/order-lookup.ts";
import { getOrder, listRecentOrdersForUser } from "../store/repositories/orders.ts";
import type { Order } from "./model/order.ts";

/** The order a button (or a stored reference) names; null when there is none by that id. */
export function orderById(store: Queryable, id: string): Promise<Order | null> {
  return getOrder(store, id);
}

/**
 * The orders of these profiles whose ticket or order number is `reference` (a ticket typed in lower case finds
 * its upper-case form), newest first, at most `limit`.
 */
export function ordersByReference(
  store: Queryable,
  reference: string,
  profiles: readonly string[],
  limit: number,
): Promise<Order[]> {
  return findOrdersByReference(store, reference, profiles, limit);
}

/** The orders a user requested, newest first, at most `limit` (App Home's "My orders"). */
export function recentOrdersOf(store: Queryable, userId: string, limit: number): Promise<Order[]> {
  return listRecentOrdersForUser(store, userId, limit);
}
