/**
 * Webhook delivery: each emitted event is POSTed as JSON to the configured URL, in the configured dialect
 * (dialect.ts: ours with Standard Webhooks headers, or the alt shape with an HMAC header). One FIFO queue per order: an order's next event waits until the previous one is delivered (or given
 * up), so a receiver sees an order's events in order; different orders are delivered concurrently. A non-2xx
 * answer, a timeout or a connection error is retried on `DEFAULT_RETRY_SCHEDULE_MS` divided by `--speed`; the
 * event keeps its id (`webhook-id`, `X-Supplier-Delivery`) and body across attempts and is signed afresh each
 * time (new timestamp).
 *
 * Faults for receivers' tests: `duplicateRate` delivers a share of events a second time after their success;
 * `reorderRate` swaps a share of adjacent pairs (events 0↔1, 2↔3, … of an order) by holding the first of a pair
 * until the second is emitted.
 */
import { setMaxListeners } from "node:events";
import { type Logger, pino } from "pino";
import { Agent, type Dispatcher, request } from "undici";
import type { SupplierEvent } from "../supplier/events.ts";
import { signDelivery } from "../supplier/webhook-signing.ts";
import type { Clock, TimerHandle } from "./clock.ts";
import { encodeEvent, type SandboxDialect, signingOf } from "./dialect.ts";
import { createRandom } from "./random.ts";
import type { DeliveryAttempt, PendingDelivery, SandboxStore } from "./store.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Wait before each attempt at `--speed 1` (the Standard Webhooks / Svix schedule): at once, 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 10 h — eight attempts over about 27.6 hours, after which the event is marked `failed` and the
 * order's next event goes out.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

/** Per attempt, connection to last body byte; not scaled by `--speed` (it is the receiver's time to answer). */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** Bytes of a receiver's answer read before the connection is dropped: the answer's content is not used. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface DelivererOptions {
  url: string;
  /** Signing secrets in the dialect's scheme; several while rotating. */
  secrets: readonly string[];
  /** Default `default`: our event format, Standard Webhooks. */
  dialect?: SandboxDialect;
  store: SandboxStore;
  clock: Clock;
  speed: number;
  seed: string;
  timeoutMs?: number;
  scheduleMs?: readonly number[];
  duplicateRate?: number;
  reorderRate?: number;
  dispatcher?: Dispatcher;
  logger?: Logger;
  userAgent?: string;
}

interface OrderQueue {
  items: PendingDelivery[];
  /** The first event of a pair being swapped, waiting for the second. */
  held: PendingDelivery | null;
  running: boolean;
}

export class WebhookDeliverer {
  private readonly queues = new Map<string, OrderQueue>();
  private readonly sleeping = new Set<{ timer: TimerHandle; wake: () => void }>();
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private readonly scheduleMs: readonly number[];
  private closed = false;

  constructor(private readonly options: DelivererOptions) {
    // Every attempt in flight listens for close; one per order with events pending is expected, not a leak.
    setMaxListeners(0, this.abort.signal);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
    this.scheduleMs = options.scheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
    if (this.scheduleMs.length === 0) throw new RangeError("the retry schedule needs at least one attempt");
    this.logger = options.logger ?? pino({ level: "silent" });
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        connect: { timeout: this.timeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        keepAliveTimeout: 4_000,
      });
  }

  enqueue(item: PendingDelivery): void {
    if (this.closed) return;
    const key = item.event.correlationId;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { items: [], held: null, running: false };
      this.queues.set(key, queue);
    }
    if (queue.held && item.seq === queue.held.seq + 1) {
      queue.items.push(item, queue.held);
      queue.held = null;
    } else if (this.holdForReorder(item)) {
      queue.held = item;
      return;
    } else {
      queue.items.push(item);
    }
    this.pump(key, queue);
  }

  private holdForReorder(item: PendingDelivery): boolean {
    const rate = this.options.reorderRate ?? 0;
    if (rate <= 0 || item.last || item.seq % 2 !== 0) return false;
    // Per pair, so a restart makes the same decision for the same events.
    return createRandom(this.options.seed, item.event.id, "reorder").chance(rate);
  }

  private pump(key: string, queue: OrderQueue): void {
    if (queue.running) return;
    queue.running = true;
    const run = (async () => {
      while (!this.closed && queue.items.length > 0) {
        await this.deliver(queue.items[0] as PendingDelivery);
        queue.items.shift();
      }
      queue.running = false;
      if (queue.items.length === 0 && queue.held === null && this.queues.get(key) === queue) {
        this.queues.delete(key);
      }
    })().catch((error: unknown) => {
      queue.running = false;
      this.logger.error({ err: error, correlationId: key }, "webhook delivery loop failed");
    });
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  private async deliver(item: PendingDelivery): Promise<void> {
    const { event } = item;
    const body = encodeEvent(this.options.dialect ?? "default", event);
    for (let attempt = item.attempts + 1; attempt <= this.scheduleMs.length; attempt++) {
      const wait = (this.scheduleMs[attempt - 1] ?? 0) / this.options.speed;
      if (wait > 0) await this.sleep(wait);
      if (this.closed) return;
      const outcome = await this.attempt(event, body, attempt, false);
      if (this.closed) return;
      if (outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300) {
        await this.options.store.setDelivery(event.id, "delivered", outcome.at + outcome.durationMs);
        const duplicateRate = this.options.duplicateRate ?? 0;
        if (
          duplicateRate > 0 &&
          createRandom(this.options.seed, event.id, "duplicate").chance(duplicateRate)
        ) {
          await this.attempt(event, body, attempt + 1, true);
        }
        return;
      }
      this.logger.debug(
        { eventId: event.id, attempt, httpStatus: outcome.httpStatus, error: outcome.error },
        "webhook delivery attempt failed",
      );
    }
    await this.options.store.setDelivery(event.id, "failed", null);
    this.logger.warn(
      { eventId: event.id, correlationId: event.correlationId, attempts: this.scheduleMs.length },
      "webhook delivery gave up after the last scheduled attempt",
    );
  }

  private async attempt(
    event: SupplierEvent,
    body: string,
    attempt: number,
    duplicate: boolean,
  ): Promise<DeliveryAttempt> {
    const at = this.options.clock.now();
    const started = performance.now();
    const signature = signDelivery(signingOf(this.options.dialect ?? "default"), {
      id: event.id,
      // The wall clock's, whatever clock runs the fulfilment (a test's may be set to another day): the receiver
      // checks it against its own wall clock, within minutes.
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secret: this.options.secrets,
    });
    let httpStatus: number | null = null;
    let error: string | null = null;
    // An explicit timer rather than `AbortSignal.any([..., AbortSignal.timeout()])`: on Node 20 a timeout
    // signal held only by a composite can be garbage-collected before it fires, leaving the attempt unbounded.
    const attemptAbort = new AbortController();
    const onClose = () => attemptAbort.abort(this.abort.signal.reason);
    if (this.abort.signal.aborted) onClose();
    else this.abort.signal.addEventListener("abort", onClose, { once: true });
    const timer = setTimeout(
      () => attemptAbort.abort(new DOMException("the delivery timed out", "TimeoutError")),
      this.timeoutMs,
    );
    try {
      const response = await request(this.options.url, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "user-agent": this.options.userAgent ?? "order-desk-sandbox",
          ...signature,
        },
        dispatcher: this.dispatcher,
        signal: attemptAbort.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      httpStatus = response.statusCode;
      await response.body.dump({ limit: MAX_RESPONSE_BYTES });
    } catch (cause) {
      error = describeError(cause, this.timeoutMs);
    } finally {
      clearTimeout(timer);
      this.abort.signal.removeEventListener("abort", onClose);
    }
    const record: DeliveryAttempt = {
      attempt,
      at,
      durationMs: Math.round(performance.now() - started),
      httpStatus,
      error,
      duplicate,
    };
    if (!this.closed) await this.options.store.recordAttempt(event.id, record);
    return record;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        wake: () => {
          this.sleeping.delete(entry);
          resolve();
        },
        timer: this.options.clock.setTimer(() => entry.wake(), ms),
      };
      this.sleeping.add(entry);
    });
  }

  /** Stops delivering: waits cancelled, requests in flight aborted. Undelivered events stay `pending` in the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    for (const entry of [...this.sleeping]) {
      entry.timer.cancel();
      entry.wake();
    }
    await Promise.allSettled([...this.running]);
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

function describeError(cause: unknown, timeoutMs: number): string {
  const error = cause as { name?: string; code?: string; message?: string };
  if (
    error?.name === "TimeoutError" ||
    error?.code === "UND_ERR_HEADERS_TIMEOUT" ||
    error?.code === "UND_ERR_BODY_TIMEOUT"
  ) {
    return `no answer within ${timeoutMs} ms`;
  }
  if (error?.name === "AbortError") return "aborted: the sandbox is shutting down";
  return [error?.code, error?.message].filter(Boolean).join(": ") || "request failed";
}
