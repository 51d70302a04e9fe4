/**
 * Reprocessing: the deliveries kept as unreadable are run through the mapping in force (corrected since) and
 * those it can now read are stored as events and posted, each exactly once, in the order the supplier says they
 * happened, in their order's thread; what still cannot be read stays unreadable with the reason it gives now.
 *
 * Exactly once: an event goes through the same ingestion as a live delivery (deduplicated by its id, so a
 * redelivery that was read meanwhile, or a second reprocessing, adds nothing), and the unreadable row is marked
 * read only after its event is stored; a crash in between leaves it to be found a duplicate next time.
 * In order: every readable row is mapped first, then ingested oldest `occurredAt` first, with a settle delay so
 * the posting job of an order starts once its events are in (it posts them oldest first).
 */
import { randomUUID } from "node:crypto";
import type { Jobs } from "../jobs/jobs.ts";
import { resolveAndShow } from "../orders/operations/resolve.ts";
import type { AttentionItem } from "../orders/operations/types.ts";
import type { Store } from "../store/db.ts";
import { findOpenAttentionForUpdate, openAttention } from "../store/repositories/attention.ts";
import {
  listOpenUnreadable,
  markUnreadableAgain,
  markUnreadableResolved,
  summariseOpenShapes,
  type UnreadableEvent,
} from "../store/repositories/unreadable.ts";
import { type EventMapper, hashBody, type MapResult } from "../supplier/event-mapping.ts";
import type { SupplierEventCanonical as SupplierEvent } from "../supplier/events.ts";
import { createIngester } from "./ingest.ts";
import { unreadableAlert } from "./unreadable.ts";

export interface ReprocessDeps {
  store: Store;
  jobs: Pick<Jobs, "send" | "sendMany">;
  mapper: EventMapper;
  /** The webhook settle delay; reprocessing waits at least `minSettleMs` so an order's events are all in first. */
  settleMs?: number;
  now?: () => number;
  newId?: () => string;
}

export interface ReprocessRequest {
  /** Only deliveries received at or after this time. */
  since?: Date;
  /** Only deliveries of this shape (a narrower run; an alert's Reprocess reads them all, see reprocess-job.ts). */
  shapeKey?: string;
  /** Who asked: an admin's Slack user id, or COMMAND_LINE (src/orders/operations/resolve.ts). */
  by: string;
  /** From the command line: the command (shown on the alerts it closes). */
  via?: string;
  /** Most deliveries looked at in one run (default 10,000; run again for more). */
  limit?: number;
}

export interface ReprocessResult {
  examined: number;
  /** Stored as events now (each posted once, if its order is known). */
  read: number;
  /** Read, but already stored as events (redelivered and read meanwhile). */
  duplicates: number;
  stillUnreadable: number;
  /** Items whose every delivery is now read: resolved as reprocessed (their alerts' rewrites enqueued). */
  resolved: AttentionItem[];
  /** Items opened for deliveries still unreadable whose earlier item had been closed (to be alerted). */
  opened: AttentionItem[];
  /** Why the first of each still-unreadable shape cannot be read now. */
  reasons: Array<{ shapeKey: string; reason: string }>;
}

const PAGE = 500;
const MIN_SETTLE_MS = 2_000;

async function openRows(store: Store, request: ReprocessRequest): Promise<UnreadableEvent[]> {
  const limit = request.limit ?? 10_000;
  const rows: UnreadableEvent[] = [];
  let after: { receivedAt: Date; id: string } | undefined;
  while (rows.length < limit) {
    const page = await listOpenUnreadable(store, {
      ...(request.since && { since: request.since }),
      ...(request.shapeKey && { shapeKey: request.shapeKey }),
      ...(after && { after }),
      limit: Math.min(PAGE, limit - rows.length),
    });
    rows.push(...page);
    const last = page.at(-1);
    if (!last || page.length < PAGE) break;
    after = { receivedAt: last.receivedAt, id: last.id };
  }
  return rows;
}

function parse(body: Buffer): { ok: true; json: unknown } | { ok: false } {
  try {
    return { ok: true, json: JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

export async function reprocessUnreadable(
  deps: ReprocessDeps,
  request: ReprocessRequest,
): Promise<ReprocessResult> {
  const now = deps.now ?? Date.now;
  const ingester = createIngester({
    store: deps.store,
    jobs: deps.jobs,
    now,
    settleMs: Math.max(deps.settleMs ?? 0, MIN_SETTLE_MS),
  });
  const rows = await openRows(deps.store, request);
  const readable: Array<{ row: UnreadableEvent; event: SupplierEvent }> = [];
  const reasons = new Map<string, string>();
  for (const row of rows) {
    const parsed = parse(row.body);
    const mapped: MapResult = parsed.ok
      ? deps.mapper.map(parsed.json, { bodyHash: hashBody(row.body) })
      : { ok: false, reason: "The body is not valid JSON." };
    if (mapped.ok) {
      readable.push({ row, event: mapped.event });
      continue;
    }
    if (!reasons.has(row.shapeKey)) reasons.set(row.shapeKey, mapped.reason);
    await markUnreadableAgain(deps.store, row.id, mapped.reason, mapped.field ?? null);
  }
  // In the order the supplier says they happened (then as received), so each order's thread reads in order.
  readable.sort(
    (a, b) =>
      Date.parse(a.event.occurredAt) - Date.parse(b.event.occurredAt) ||
      a.row.receivedAt.getTime() - b.row.receivedAt.getTime(),
  );
  let read = 0;
  let duplicates = 0;
  for (const { row, event } of readable) {
    const result = await ingester.ingest({ event, rawBody: row.body, delivery: row.delivery });
    if (result.duplicate) duplicates++;
    else read++;
    await markUnreadableResolved(deps.store, row.id, event.id);
  }

  const shapes = [...new Set(rows.map((r) => r.shapeKey))];
  const summaries = await summariseOpenShapes(deps.store, shapes);
  const resolved: AttentionItem[] = [];
  const opened: AttentionItem[] = [];
  for (const shapeKey of shapes) {
    const summary = summaries.get(shapeKey);
    const item = await deps.store.transaction(async (tx) => {
      if (!summary || summary.open === 0) {
        const open = await findOpenAttentionForUpdate(tx, "unreadable_events", shapeKey);
        if (!open) return null;
        // The alert's rewrite is a job of this transaction (the command line shows nothing in Slack itself).
        const done = await resolveAndShow(deps.jobs, tx, open.id, {
          resolution: "reprocessed",
          by: request.by,
          detail: {
            events: rows.filter((r) => r.shapeKey === shapeKey).length,
            ...(request.via && { via: request.via }),
          },
        });
        if (done) resolved.push(done);
        return null;
      }
      const first = rows.find((r) => r.shapeKey === shapeKey);
      if (!first) return null;
      const { item, created } = await openAttention(tx, {
        id: (deps.newId ?? randomUUID)(),
        kind: "unreadable_events",
        subject: shapeKey,
        alert: unreadableAlert(
          { key: shapeKey, fields: first.shape.fields, more: first.shape.more },
          { reason: reasons.get(shapeKey) ?? first.reason, receivedAt: summary.since ?? first.receivedAt },
          summary.open,
        ),
      });
      return created ? item : null;
    });
    if (item) opened.push(item);
  }
  return {
    examined: rows.length,
    read,
    duplicates,
    stillUnreadable: rows.length - readable.length,
    resolved,
    opened,
    reasons: [...reasons].map(([shapeKey, reason]) => ({ shapeKey, reason })),
  };
}
