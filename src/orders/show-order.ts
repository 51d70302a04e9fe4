/**
 * Shows an order's change in Slack and records where its message went, so that the order has one message
 * however the process dies. Posting the message and recording its ts cannot be one step: a crash (or a lost
 * answer) in between would post a second message on the retry. So the attempt is recorded first
 * (`message_attempted_at`), and an order attempted before is looked up in Slack (`notifier.findPublished`,
 * by the message's metadata) before anything is posted again.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Store } from "../store/db.ts";
import { getOrder, markMessageAttempted, setOriginMessage } from "../store/repositories/orders.ts";
import type { Order } from "./model/order.ts";
import type { OrderChange, OrderNotifier } from "./ports.ts";

/** Tries in all (a Slack 5xx or a dropped connection is often gone a moment later). */
const ATTEMPTS = 3;
const RETRY_DELAY_MS = 500;

/**
 * Returns the order as stored after the change was shown (with its message recorded when one was posted).
 * A failed attempt is tried again after a short wait; since the first attempt was recorded, the retry looks for
 * the message before posting, so a post whose answer was lost is not repeated. Throws the last error, or the
 * abort reason once `signal` is aborted (its waits end at once).
 */
export async function showOrder(
  store: Store,
  notifier: OrderNotifier,
  order: Order,
  change: OrderChange,
  options: { retryDelayMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<Order> {
  const { signal } = options;
  let current = order;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await showOnce(store, notifier, current, change, signal);
    } catch (error) {
      if (attempt >= ATTEMPTS || signal?.aborted) throw error;
      await sleep((options.retryDelayMs ?? RETRY_DELAY_MS) * attempt, undefined, { signal });
      current = (await getOrder(store, current.id)) ?? current;
    }
  }
}

async function showOnce(
  store: Store,
  notifier: OrderNotifier,
  order: Order,
  change: OrderChange,
  signal: AbortSignal | undefined,
): Promise<Order> {
  let current = order;
  if (current.slackMessageTs === null && notifier.findPublished) {
    if (current.messageAttemptedAt !== null) {
      const found = await notifier.findPublished(current, { signal });
      if (found) current = (await setOriginMessage(store, current.id, found)) ?? current;
    }
    if (current.slackMessageTs === null) current = (await markMessageAttempted(store, current.id)) ?? current;
  }
  const origin = await notifier.publish(current, change, { signal });
  return origin ? ((await setOriginMessage(store, current.id, origin)) ?? current) : current;
}
