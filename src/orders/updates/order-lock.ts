/**
 * One poster per order at a time, so that an order's replies go out in `occurredAt` order and none twice.
 *
 * - In this process: a promise chain per order (jobs for the same order wait their turn; the first one posts
 *   everything unposted, the others then find nothing left to do).
 * - Across replicas (PostgreSQL): a session advisory lock held on a dedicated connection while posting. It is
 *   released when we are done, or by the server when the connection drops (a crashed replica never leaves a
 *   lock behind). When another replica holds it, `OrderBusyError` tells the job to come back shortly: that
 *   replica may have listed the unposted events before ours was stored, so ours must not be dropped.
 * - On the embedded store (one process by construction, one connection) the in-process lock is all there is;
 *   holding the only connection for the duration of Slack calls would stall everything else.
 */
import { withTryAdvisoryLock } from "../../store/advisory-lock.ts";
import type { Store } from "../../store/db.ts";

/** Namespace of Order Desk's advisory locks (first key of the two-key form), so they never clash with others'. */
const LOCK_NAMESPACE = 0x0d0e5c;

export class OrderBusyError extends Error {
  readonly code = "ORDER_BUSY";
  constructor(readonly orderId: string) {
    super(`another replica is posting the updates of order ${orderId}; this job will run again shortly`);
    this.name = "OrderBusyError";
  }
}

export class OrderLocks {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly store: Store) {}

  async run<T>(orderId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(orderId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(orderId, tail);
    await previous;
    try {
      return this.store.kind === "postgres" ? await this.acrossReplicas(orderId, fn) : await fn();
    } finally {
      release();
      if (this.tails.get(orderId) === tail) this.tails.delete(orderId);
    }
  }

  private async acrossReplicas<T>(orderId: string, fn: () => Promise<T>): Promise<T> {
    const result = await withTryAdvisoryLock(this.store, LOCK_NAMESPACE, orderId, fn);
    if (!result.acquired) throw new OrderBusyError(orderId);
    return result.value;
  }
}
