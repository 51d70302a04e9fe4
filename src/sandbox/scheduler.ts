/**
 * Plays the fulfilment plans: each order's next step is due at its planned time (`stepTimes`). One timer for
 * the earliest due step over a min-heap of (due, order), so thousands of orders in flight cost one timer, and the
 * order itself is read from the store when its step fires (an order the store no longer holds is skipped).
 * Steps of one order are emitted one after another; different orders independently.
 */
import { type Logger, pino } from "pino";
import { STATUS_CHANGED } from "../supplier/events.ts";
import type { Clock, TimerHandle } from "./clock.ts";
import { stepTimes, toSupplierEvent } from "./fulfilment.ts";
import type { PendingDelivery, SandboxOrder, SandboxStore } from "./store.ts";

interface Due {
  at: number;
  correlationId: string;
}

/** A binary min-heap on `at`. */
class DueHeap {
  private readonly items: Due[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Due | undefined {
    return this.items[0];
  }

  push(item: Due): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as Due).at <= item.at) break;
      items[i] = items[parent] as Due;
      i = parent;
    }
    items[i] = item;
  }

  pop(): Due | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child =
          right < items.length && (items[right] as Due).at < (items[left] as Due).at ? right : left;
        if ((items[child] as Due).at >= last.at) break;
        items[i] = items[child] as Due;
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}

export interface SchedulerOptions {
  store: SandboxStore;
  clock: Clock;
  speed: number;
  /** Hands each emitted event to the webhook deliverer; null when no webhook is configured. */
  deliver: ((item: PendingDelivery) => void) | null;
  logger?: Logger;
}

/** Steps started per timer turn; the rest wait for the next turn (after pending I/O). */
const MAX_EMITS_PER_TURN = 64;

/** After a store error, the step is tried again this much later (real time, not scaled). */
const RETRY_AFTER_ERROR_MS = 1_000;

export class FulfilmentScheduler {
  private readonly heap = new DueHeap();
  private readonly emitting = new Set<Promise<void>>();
  private readonly logger: Logger;
  private timer: TimerHandle | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private closed = false;

  constructor(private readonly options: SchedulerOptions) {
    this.logger = options.logger ?? pino({ level: "silent" });
  }

  /** Schedules the order's next step (a new order's first step is due at once). */
  track(order: SandboxOrder): void {
    const at = stepTimes(order, this.options.speed)[order.nextStep];
    if (at === undefined || this.closed) return;
    this.push({ at, correlationId: order.correlationId });
  }

  /** Orders in flight, for tests and the `/_sandbox` view. */
  get pending(): number {
    return this.heap.size + this.emitting.size;
  }

  private push(item: Due): void {
    this.heap.push(item);
    if (item.at < this.timerAt) this.arm(item.at);
  }

  private arm(at: number): void {
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.options.clock.setTimer(() => this.fire(), Math.max(0, at - this.options.clock.now()));
  }

  private fire(): void {
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.closed) return;
    const now = this.options.clock.now();
    let started = 0;
    for (let next = this.heap.peek(); next && next.at <= now; next = this.heap.peek()) {
      // A bounded batch per turn of the event loop, so a burst of due steps never stalls requests.
      if (started === MAX_EMITS_PER_TURN) {
        this.arm(now);
        return;
      }
      started += 1;
      this.heap.pop();
      const run = this.emit(next.correlationId);
      this.emitting.add(run);
      void run.finally(() => this.emitting.delete(run));
    }
    const next = this.heap.peek();
    if (next) this.arm(next.at);
  }

  private async emit(correlationId: string): Promise<void> {
    const { store, clock, speed } = this.options;
    try {
      const order = await store.getOrder(correlationId);
      if (!order || this.closed) return;
      const seq = order.nextStep;
      const step = order.plan[seq];
      if (!step) return;
      const now = clock.now();
      const times = stepTimes(order, speed);
      // The planned time, not `now`: a step emitted late (load, restart) still occurred when it was due.
      const event = toSupplierEvent(order, step, seq, times[seq] ?? now);
      const last = seq === order.plan.length - 1;
      await store.appendEvent(
        correlationId,
        { event, seq, emittedAt: now, delivery: this.options.deliver ? "pending" : "not_configured" },
        step.type === STATUS_CHANGED ? step.data.status : null,
      );
      if (this.closed) return;
      this.options.deliver?.({ event, seq, last, attempts: 0 });
      const following = times[seq + 1];
      if (following !== undefined) this.push({ at: following, correlationId });
    } catch (error) {
      if (this.closed) return;
      this.logger.error({ err: error, correlationId }, "fulfilment step failed; trying again");
      this.push({ at: clock.now() + RETRY_AFTER_ERROR_MS, correlationId });
    }
  }

  /** Stops emitting; steps being written finish first. Unemitted steps stay in the store's plan. */
  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
    await Promise.allSettled([...this.emitting]);
  }
}
