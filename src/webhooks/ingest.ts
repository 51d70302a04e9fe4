/**
 * Stores a verified, parsed event and makes sure its posting is scheduled, before the supplier gets its 2xx.
 *
 * - The event and its `post-update` job are written in one transaction: no event without a job to post it.
 * - Except when a job of this process for the same order is already waiting to start (it was enqueued by an
 *   earlier event within the settle delay): that job lists the order's unposted events when it starts, so it
 *   covers this one too, and the event is stored with a single INSERT — the bulk of the traffic during a burst
 *   of updates then costs what storing it costs. The job must start after this INSERT commits; we only rely
 *   on it while its start is more than `coverMarginMs` away (and the sweep in orphans.ts re-enqueues any
 *   attached event left unposted for long, whatever the reason).
 * - A redelivery of a stored event changes nothing.
 * - Group commit (src/store/group-commit.ts): events arriving while earlier ones are being committed are
 *   written together, one multi-row INSERT and one job INSERT in one transaction, so a burst costs a few round
 *   trips per batch instead of a transaction per event. Each request still waits for its own event's commit
 *   before answering.
 *
 * An event is matched to its order by correlation id: the order's own, or one an admin attached to the order
 * from an orphan alert ("Attach to order…", `order_aliases`), so the supplier's later events for an attached
 * order follow in its thread. An event whose correlation id matches no order yet is kept as an orphan (order_id
 * null, no job). It is attached when the order's placement is recorded (`attachOrphanEvents`), or by the
 * periodic sweep.
 *
 * One more way to find the order: an order placed by an earlier attempt whose answer we never saw (timeout,
 * then DUPLICATE_ORDER on the retry) has no correlation id. When the event names an `externalDocumentNumber`
 * and exactly one such order has it, the event tells us the correlation id and we adopt it.
 *
 * A supplier whose events name only the document number (the mapping has no correlation id path): the event is
 * matched to the one order with that number that reached the supplier, and kept under the key `edn:<number>`
 * (match-key.ts) in place of a correlation id, so an event of no known order is an orphan like any other.
 */
import type { Jobs, ManyJob } from "../jobs/jobs.ts";
import type { PostUpdateJobData } from "../jobs/payloads.ts";
import { QUEUES } from "../jobs/queues.ts";
import { neverReachedSupplier } from "../orders/model/failure.ts";
import { enqueuePostUpdate, postUpdateJob } from "../orders/updates/enqueue.ts";
import type { Queryable, Store } from "../store/db.ts";
import { GroupCommit } from "../store/group-commit.ts";
import { attachOrphans, insertEventsIfNew } from "../store/repositories/events.ts";
import { findOrderIdByCorrelationId } from "../store/repositories/order-aliases.ts";
import { findOrdersByExternalDocumentNumber, setCorrelationId } from "../store/repositories/orders.ts";
import type { DeliveryInfo } from "../store/repositories/unreadable.ts";
import type { SupplierEventCanonical as SupplierEvent } from "../supplier/events.ts";
import { matchKeyOf } from "./match-key.ts";
import { attachOrphanEvents } from "./orphans.ts";

export interface IngestDeps {
  store: Store;
  jobs: Pick<Jobs, "send" | "sendMany">;
  /** Delay before posting, so reordered deliveries are sorted first (default 0). */
  settleMs?: number;
  /** A waiting job covers new events only while its start is further away than this (default 250 ms). */
  coverMarginMs?: number;
  now?: () => number;
}

export type IngestResult =
  | { duplicate: true; orderId: string | null }
  | { duplicate: false; orderId: string | null; adopted: boolean };

/** A verified delivery the mapping could read: the event in our format, and the delivery as it came. */
export interface ReadableDelivery {
  event: SupplierEvent;
  rawBody: Buffer;
  delivery: DeliveryInfo;
}

export interface Ingester {
  ingest(input: ReadableDelivery): Promise<IngestResult>;
}

async function adoptByDocumentNumber(
  tx: Queryable,
  correlationId: string,
  externalDocumentNumber: string,
): Promise<string | null> {
  const candidates = (await findOrdersByExternalDocumentNumber(tx, externalDocumentNumber)).filter(
    (o) => o.correlationId === null && !neverReachedSupplier(o.failure),
  );
  const only = candidates.length === 1 ? candidates[0] : undefined;
  if (!only) return null;
  if (!(await setCorrelationId(tx, only.id, correlationId))) return null;
  await attachOrphans(tx, correlationId, only.id);
  return only.id;
}

const MAX_TRACKED = 50_000;

/** The one order that has this document number and reached the supplier, or null. */
async function orderOfDocumentNumber(tx: Queryable, externalDocumentNumber: string): Promise<string | null> {
  const candidates = (await findOrdersByExternalDocumentNumber(tx, externalDocumentNumber)).filter(
    (o) => !neverReachedSupplier(o.failure),
  );
  return candidates.length === 1 ? (candidates[0]?.id ?? null) : null;
}

/** An event on its way into a batch, with what was decided before the batch was written. */
interface Pending extends ReadableDelivery {
  /** The correlation id, or `edn:<number>` for an event without one. */
  key: string;
  /** A waiting job of this process will post it: no job of its own. */
  covered: boolean;
  startsAt: number;
}

type Written =
  | { duplicate: true; orderId: string | null }
  | { duplicate: false; orderId: string | null; adopted: boolean };

export function createIngester(deps: IngestDeps): Ingester {
  const now = deps.now ?? Date.now;
  const settleMs = deps.settleMs ?? 0;
  const margin = deps.coverMarginMs ?? 250;
  /** correlation id → the order and when this process's waiting job for it starts. */
  const waiting = new Map<string, { orderId: string; startsAt: number }>();

  const remember = (correlationId: string, orderId: string, startsAt: number) => {
    if (waiting.size >= MAX_TRACKED) {
      const t = now();
      for (const [key, w] of waiting) if (w.startsAt <= t) waiting.delete(key);
      if (waiting.size >= MAX_TRACKED) waiting.clear();
    }
    waiting.set(correlationId, { orderId, startsAt });
  };

  const coveredOrder = (correlationId: string): string | null => {
    const w = waiting.get(correlationId);
    return w && w.startsAt - now() > margin ? w.orderId : null;
  };

  async function write(batch: readonly Pending[]): Promise<Written[]> {
    // Events all covered by waiting jobs need no job and no adoption: one INSERT, atomic on its own.
    const run = (work: (q: Queryable) => Promise<Written[]>) =>
      batch.every((p) => p.covered) ? work(deps.store) : deps.store.transaction(work);
    return run(async (tx) => {
      // A redelivery racing its first delivery into the same batch: the first one is written.
      const first = new Map<string, Pending>();
      for (const p of batch) if (!first.has(p.event.id)) first.set(p.event.id, p);
      const rows = [];
      for (const { event, key, rawBody, delivery } of first.values()) {
        const byNumber =
          event.correlationId === undefined && event.externalDocumentNumber !== undefined
            ? await orderOfDocumentNumber(tx, event.externalDocumentNumber)
            : null;
        rows.push({
          id: event.id,
          correlationId: key,
          type: event.type,
          occurredAt: event.occurredAt,
          payload: event,
          rawBody,
          delivery,
          orderId: byNumber,
        });
      }
      const stored = await insertEventsIfNew(tx, rows);
      const written = new Map<string, Written>();
      const jobs: ManyJob<PostUpdateJobData>[] = [];
      for (const p of first.values()) {
        const s = stored.get(p.event.id) ?? { inserted: false, orderId: null };
        if (!s.inserted) {
          written.set(p.event.id, { duplicate: true, orderId: s.orderId });
          continue;
        }
        let orderId = s.orderId;
        let adopted = false;
        if (orderId === null && p.event.externalDocumentNumber && p.event.correlationId !== undefined) {
          orderId = await adoptByDocumentNumber(tx, p.event.correlationId, p.event.externalDocumentNumber);
          adopted = orderId !== null;
        }
        if (orderId !== null && !p.covered) {
          jobs.push(postUpdateJob({ orderId, eventId: p.event.id }, p.startsAt, now));
        }
        written.set(p.event.id, { duplicate: false, orderId, adopted });
      }
      await deps.jobs.sendMany(QUEUES.postUpdate, jobs, { tx });
      return batch.map((p): Written => {
        const w = written.get(p.event.id) ?? { duplicate: true, orderId: null };
        return first.get(p.event.id) === p ? w : { duplicate: true, orderId: w.orderId };
      });
    });
  }

  const group = new GroupCommit<Pending, Written>(write, {
    // PostgreSQL: a few batches in flight use the pool; the embedded store has one connection.
    concurrency: deps.store.kind === "postgres" ? 2 : 1,
  });

  return {
    async ingest(input) {
      const { event } = input;
      const key = matchKeyOf(event);
      const covered = coveredOrder(key) !== null;
      const startsAt = now() + settleMs;
      const result = await group.submit({ ...input, key, covered, startsAt });
      if (result.duplicate) return result;
      if (covered) {
        // Re-checked after the commit: if the waiting job's start came too close meanwhile, enqueue our own.
        if (result.orderId !== null && coveredOrder(key) !== result.orderId) {
          await enqueuePostUpdate(
            deps.jobs,
            { orderId: result.orderId, eventId: event.id },
            { settleMs, now },
          );
        }
      } else if (result.orderId !== null && settleMs > margin) {
        remember(key, result.orderId, startsAt);
      }
      if (result.orderId === null) {
        // The placement (or an admin's attach) may have committed while this event's INSERT was in flight (it
        // saw no order, and the placement's attach saw no event yet): look again now that both are committed,
        // rather than leaving the event to the periodic sweep.
        const orderId = await findOrderIdByCorrelationId(deps.store, key);
        if (orderId !== null) {
          await attachOrphanEvents({ store: deps.store, jobs: deps.jobs, settleMs, now }, orderId, key);
          return { ...result, orderId };
        }
      }
      return result;
    },
  };
}
