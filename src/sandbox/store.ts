/**
 * What the sandbox remembers: orders (with their plan and progress), the events they emitted and each webhook
 * delivery attempt. Behind an interface with two implementations: in memory (the default, bounded) and SQL on the
 * project store (`--data-dir`), where orders, duplicate detection and pending deliveries survive a restart.
 */
import type { SupplierEvent, SupplierOrderState } from "../supplier/events.ts";
import type { CreateOrderRequest } from "../supplier/schema.ts";
import type { PlannedEvent } from "./fulfilment.ts";

export interface SandboxOrder {
  correlationId: string;
  /** The customer the API key belongs to: duplicate numbers are detected per customer. */
  customer: string;
  externalDocumentNumber: string;
  /** The key that placed it, redacted (`ods_test_…1a2b`). */
  apiKey: string;
  /** The request as validated (defaults applied, unknown fields dropped). */
  request: CreateOrderRequest;
  acceptedAt: number;
  status: SupplierOrderState;
  statusAt: number;
  plan: PlannedEvent[];
  /** Index of the next plan step to emit; `plan.length` when fulfilment is over. */
  nextStep: number;
}

/** `not_configured`: no webhook URL, nothing to deliver. `failed`: the retry schedule ran out. */
export type DeliveryState = "pending" | "delivered" | "failed" | "not_configured";

export interface DeliveryAttempt {
  attempt: number;
  at: number;
  durationMs: number;
  /** The receiver's status; null when no response came (timeout, refused, reset). */
  httpStatus: number | null;
  error: string | null;
  /** A deliberate second delivery (`--duplicate-rate`). */
  duplicate: boolean;
}

export interface SandboxEventRecord {
  event: SupplierEvent;
  seq: number;
  emittedAt: number;
  delivery: DeliveryState;
  deliveredAt: number | null;
  attempts: DeliveryAttempt[];
}

export interface PendingDelivery {
  event: SupplierEvent;
  seq: number;
  /** Whether it is the order's last planned event (the reorder fault never holds the last one). */
  last: boolean;
  /** Attempts already made (the retry schedule continues from there). */
  attempts: number;
}

export type CreateResult = { created: true } | { created: false; existingCorrelationId: string };

export interface ListOptions {
  limit: number;
  customer?: string;
}

export interface SandboxStore {
  /** Inserts the order unless its customer already has the externalDocumentNumber (atomically). Takes ownership. */
  createOrder(order: SandboxOrder): Promise<CreateResult>;
  /** The order as stored; treat it as read-only. */
  getOrder(correlationId: string): Promise<SandboxOrder | null>;
  /** Records an emitted event, advances `nextStep` past it and, for a status change, the order's status. */
  appendEvent(
    correlationId: string,
    record: { event: SupplierEvent; seq: number; emittedAt: number; delivery: DeliveryState },
    status: SupplierOrderState | null,
  ): Promise<void>;
  recordAttempt(eventId: string, attempt: DeliveryAttempt): Promise<void>;
  setDelivery(eventId: string, delivery: DeliveryState, deliveredAt: number | null): Promise<void>;
  /** Newest first. */
  listOrders(options: ListOptions): Promise<SandboxOrder[]>;
  events(correlationId: string): Promise<SandboxEventRecord[]>;
  /** Orders whose plan has steps left, oldest first (resumed at start-up). */
  unfinishedOrders(): Promise<SandboxOrder[]>;
  /** Events still to deliver, by order then sequence (resumed at start-up). */
  pendingDeliveries(): Promise<PendingDelivery[]>;
  close(): Promise<void>;
}

/** Orders kept by the in-memory store before the oldest are forgotten (their numbers stay known as duplicates). */
export const DEFAULT_MAX_MEMORY_ORDERS = 10_000;

interface MemoryEntry {
  order: SandboxOrder;
  events: SandboxEventRecord[];
}

/**
 * In memory. Bounded: past `maxOrders` the oldest orders are dropped (their fulfilment stops), so a load test
 * cannot exhaust memory; the `(customer, externalDocumentNumber)` pairs are kept, so duplicates are still refused.
 */
export class MemorySandboxStore implements SandboxStore {
  private readonly orders = new Map<string, MemoryEntry>();
  private readonly numbers = new Map<string, string>();
  private readonly eventIndex = new Map<string, { entry: MemoryEntry; record: SandboxEventRecord }>();
  /**
   * Arrival order, for eviction. Not `orders.keys().next()`: V8 leaves deleted Map entries in place until it
   * rehashes, so reading the oldest key after many evictions walks every tombstone (a hot spot under load).
   */
  private arrivals: string[] = [];
  private arrivalsHead = 0;
  private readonly maxOrders: number;

  constructor(options: { maxOrders?: number } = {}) {
    this.maxOrders = options.maxOrders ?? DEFAULT_MAX_MEMORY_ORDERS;
  }

  async createOrder(order: SandboxOrder): Promise<CreateResult> {
    const key = `${order.customer}\u0000${order.externalDocumentNumber}`;
    const existing = this.numbers.get(key);
    if (existing !== undefined) return { created: false, existingCorrelationId: existing };
    this.numbers.set(key, order.correlationId);
    // Ownership passes to the store (the caller built it for this call): no copy on the hot path.
    this.orders.set(order.correlationId, { order, events: [] });
    this.arrivals.push(order.correlationId);
    if (this.orders.size > this.maxOrders) this.evictOldest();
    return { created: true };
  }

  private evictOldest(): void {
    const correlationId = this.arrivals[this.arrivalsHead];
    if (correlationId === undefined) return;
    this.arrivalsHead += 1;
    if (this.arrivalsHead > 4096 && this.arrivalsHead * 2 > this.arrivals.length) {
      this.arrivals = this.arrivals.slice(this.arrivalsHead);
      this.arrivalsHead = 0;
    }
    const entry = this.orders.get(correlationId);
    if (!entry) return;
    this.orders.delete(correlationId);
    for (const record of entry.events) this.eventIndex.delete(record.event.id);
  }

  async getOrder(correlationId: string): Promise<SandboxOrder | null> {
    // Read-only for the caller; the scheduler reads this once per emitted step.
    return this.orders.get(correlationId)?.order ?? null;
  }

  async appendEvent(
    correlationId: string,
    record: { event: SupplierEvent; seq: number; emittedAt: number; delivery: DeliveryState },
    status: SupplierOrderState | null,
  ): Promise<void> {
    const entry = this.orders.get(correlationId);
    if (!entry || this.eventIndex.has(record.event.id)) return;
    // The scheduler builds each record for this call: kept as is (readers get copies).
    const stored: SandboxEventRecord = { ...record, deliveredAt: null, attempts: [] };
    entry.events.push(stored);
    this.eventIndex.set(record.event.id, { entry, record: stored });
    entry.order.nextStep = Math.max(entry.order.nextStep, record.seq + 1);
    if (status !== null) {
      entry.order.status = status;
      entry.order.statusAt = record.emittedAt;
    }
  }

  async recordAttempt(eventId: string, attempt: DeliveryAttempt): Promise<void> {
    this.eventIndex.get(eventId)?.record.attempts.push({ ...attempt });
  }

  async setDelivery(eventId: string, delivery: DeliveryState, deliveredAt: number | null): Promise<void> {
    const found = this.eventIndex.get(eventId);
    if (!found) return;
    found.record.delivery = delivery;
    found.record.deliveredAt = deliveredAt;
  }

  async listOrders(options: ListOptions): Promise<SandboxOrder[]> {
    const out: SandboxOrder[] = [];
    for (let i = this.arrivals.length - 1; i >= this.arrivalsHead && out.length < options.limit; i--) {
      const order = this.orders.get(this.arrivals[i] as string)?.order;
      if (!order) continue;
      if (options.customer === undefined || order.customer === options.customer)
        out.push(structuredClone(order));
    }
    return out;
  }

  async events(correlationId: string): Promise<SandboxEventRecord[]> {
    return structuredClone(this.orders.get(correlationId)?.events ?? []);
  }

  async unfinishedOrders(): Promise<SandboxOrder[]> {
    return [...this.orders.values()]
      .filter((entry) => entry.order.nextStep < entry.order.plan.length)
      .map((entry) => structuredClone(entry.order));
  }

  async pendingDeliveries(): Promise<PendingDelivery[]> {
    const out: PendingDelivery[] = [];
    for (const { order, events } of this.orders.values()) {
      for (const record of events) {
        if (record.delivery !== "pending") continue;
        out.push({
          event: structuredClone(record.event),
          seq: record.seq,
          last: record.seq === order.plan.length - 1,
          attempts: record.attempts.length,
        });
      }
    }
    return out;
  }

  async close(): Promise<void> {}
}
