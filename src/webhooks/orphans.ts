/**
 * Orphan events: stored, but for a correlation id no order had when they arrived (an event can beat the
 * placement response that tells us the correlation id).
 *
 * - `attachOrphanEvents`: the placement job calls it right after recording the correlation id (`markPlaced`);
 *   the waiting events are linked to the order and their posting is enqueued.
 * - The sweep, every `intervalMs`: attaches orphans whose order has become known in the meantime (this covers
 *   the race where the event's INSERT and the placement's commit, or an admin's "Attach to order…", overlap on
 *   PostgreSQL, and a placement job that crashed between the two), then reports those still orphaned after
 *   `orphanAfterMs` — once each — in the log and to the admin channel. It also re-enqueues the posting of
 *   orders with events left unposted (and without a recorded posting error) for `stalledAfterMs`: the backstop
 *   for an event stored while a waiting job was relied on to post it (ingest.ts) and that job started too early.
 *
 * A sweep that finds the orphans of several correlation ids (a storm) sends one summary alert for all of them, with
 * "Ignore all" (src/orders/operations/report.ts keeps one summary open and rewrites it as the storm goes on); one
 * correlation id gets its own alert with "Attach to order…".
 *
 * An orphan is marked reported only once the admin alert went out: a failed alert (Slack down, admin channel
 * archived) is tried again by the next sweep. On PostgreSQL the reporting runs under a session advisory lock,
 * so two replicas never alert about the same orphans; a crash between the alert and the mark can repeat it
 * once (never lose it).
 */
import { type Logger, pino } from "pino";
import { clip } from "../http/untrusted.ts";
import { jobId } from "../jobs/ids.ts";
import type { Jobs } from "../jobs/jobs.ts";
import { QUEUES } from "../jobs/queues.ts";
import { type AdminAlert, alertPlainText } from "../orders/ports.ts";
import { enqueuePostUpdate } from "../orders/updates/enqueue.ts";
import { withTryAdvisoryLock } from "../store/advisory-lock.ts";
import type { Queryable, Store } from "../store/db.ts";
import {
  attachOrphans,
  listOrphansOlderThan,
  markOrphanReported,
  type StoredEvent,
} from "../store/repositories/events.ts";

export interface OrphanDeps {
  store: Store;
  jobs: Pick<Jobs, "send">;
  /** Delay before posting (the same settle delay as live events; default 0). */
  settleMs?: number;
  now?: () => number;
}

/**
 * Links the events waiting for `correlationId` to the order and enqueues their posting. Pass the placement's
 * transaction as `tx` to make it part of it. Returns how many events were attached.
 */
export async function attachOrphanEvents(
  deps: OrphanDeps,
  orderId: string,
  correlationId: string,
  options: { tx?: Queryable } = {},
): Promise<number> {
  const attach = async (tx: Queryable) => {
    const ids = await attachOrphans(tx, correlationId, orderId);
    const first = ids[0];
    // One job is enough: it posts every unposted event of the order, oldest first.
    if (first !== undefined) {
      await enqueuePostUpdate(
        deps.jobs,
        { orderId, eventId: first },
        {
          tx,
          ...(deps.settleMs !== undefined && { settleMs: deps.settleMs }),
          ...(deps.now && { now: deps.now }),
        },
      );
    }
    return ids.length;
  };
  return options.tx ? attach(options.tx) : deps.store.transaction(attach);
}

export interface OrphanSweepOptions extends OrphanDeps {
  /** An orphan older than this is reported (config ORPHAN_AFTER_MS). */
  orphanAfterMs: number;
  /** How often the sweep runs (default 60 s). */
  intervalMs?: number;
  /** An attached event unposted (and without a posting error) for this long gets a new job (default 5 min). */
  stalledAfterMs?: number;
  alertAdmins?: (alert: AdminAlert) => Promise<void>;
  logger?: Logger;
}

export interface SweepResult {
  attached: number;
  reported: number;
  /** Orders whose posting was re-enqueued because their events were left unposted. */
  restarted: number;
}

export interface OrphanSweeper {
  runOnce(): Promise<SweepResult>;
  start(): void;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/**
 * Orphans whose correlation id now belongs to an order, as its own or attached to it by an admin (the own one
 * first, as everywhere events are matched; bounded per sweep).
 */
async function reattach(tx: Queryable): Promise<Array<{ id: string; orderId: string }>> {
  const { rows } = await tx.query<{ id: string; order_id: string }>(
    `WITH matched AS (
       SELECT e.id, COALESCE(o.id, a.order_id) AS order_id, e.occurred_at
       FROM supplier_events e
       LEFT JOIN orders o ON o.correlation_id = e.correlation_id
       LEFT JOIN order_aliases a ON a.correlation_id = e.correlation_id
       WHERE e.order_id IS NULL AND (o.id IS NOT NULL OR a.order_id IS NOT NULL)
       ORDER BY e.occurred_at, e.id
       LIMIT 500
     )
     UPDATE supplier_events s SET order_id = m.order_id
     FROM matched m WHERE s.id = m.id AND s.order_id IS NULL
     RETURNING s.id, s.order_id`,
  );
  return rows.map((r) => ({ id: r.id, orderId: r.order_id }));
}

/** One stalled event per order: the oldest attached, unposted event without a posting error. */
async function stalledOrders(
  q: Queryable,
  receivedBefore: Date,
): Promise<Array<{ id: string; orderId: string }>> {
  const { rows } = await q.query<{ id: string; order_id: string }>(
    `SELECT DISTINCT ON (order_id) order_id, id FROM supplier_events
     WHERE order_id IS NOT NULL AND posted_at IS NULL AND post_error IS NULL AND received_at < $1
     ORDER BY order_id, occurred_at, id
     LIMIT 200`,
    [receivedBefore],
  );
  return rows.map((r) => ({ id: r.id, orderId: r.order_id }));
}

/**
 * Namespace of the reporting lock ("OD" + "OR"), so it never clashes with the order or job locks; one lock per
 * schema, so deployments sharing a database in schemas of their own each report their own orphans.
 */
const REPORT_LOCK_NAMESPACE = 0x4f44_4f52;
const REPORT_LOCK_KEY = { perSchema: "orphan-report" };

/**
 * Runs `fn` as the only reporter, or returns null without running it: in this process, and on PostgreSQL under a
 * session advisory lock held on a dedicated connection (released with the connection if a replica dies), skipped
 * when another replica holds it. The embedded store belongs to one process.
 */
async function asOnlyReporter<T>(store: Store, fn: () => Promise<T>): Promise<T | null> {
  // Another sweeper of this process is reporting (one per process in the app; tests may run more).
  if (reportingHere.has(store)) return null;
  reportingHere.add(store);
  try {
    return store.kind === "postgres" ? await underAdvisoryLock(store, fn) : await fn();
  } finally {
    reportingHere.delete(store);
  }
}

const reportingHere = new WeakSet<Store>();

async function underAdvisoryLock<T>(store: Store, fn: () => Promise<T>): Promise<T | null> {
  const result = await withTryAdvisoryLock(store, REPORT_LOCK_NAMESPACE, REPORT_LOCK_KEY, fn);
  return result.acquired ? result.value : null;
}

function describeOrphans(correlationId: string, events: StoredEvent[], orphanAfterMs: number): AdminAlert {
  const minutes = Math.max(1, Math.round(orphanAfterMs / 60_000));
  const documentNumbers = [
    ...new Set(
      events
        .map((e) => (e.payload as { externalDocumentNumber?: unknown }).externalDocumentNumber)
        .filter((v): v is string => typeof v === "string")
        .map((v) => clip(v, 40)),
    ),
  ];
  // What the supplier sent, cut short: the alert is about the orphans, not a place to repeat a megabyte.
  const types = [...new Set(events.map((e) => clip(e.type, 40)))].join(", ");
  return {
    key: `orphan-events:${correlationId}`,
    subject: { kind: "orphan_events", correlationId },
    title: "Supplier updates for an unknown order",
    text:
      `${events.length} supplier update${events.length === 1 ? "" : "s"} (${types}) for correlation id ` +
      `${correlationId}${documentNumbers.length ? ` (document ${documentNumbers.join(", ")})` : ""} arrived ` +
      `more than ${minutes} min ago and match no order here. They are kept and will be posted if the order ` +
      "shows up. Usual causes: an order placed outside Order Desk, another deployment's webhook URL, or a " +
      "lost placement answer (see docs/webhooks.md, Orphans).",
  };
}

/**
 * Several correlation ids at once (a storm: another deployment's events, a replay, someone with the webhook secret):
 * one alert for all of them. The attention code counts them and names the first few (src/orders/operations/report.ts).
 */
function describeStorm(groups: Map<string, StoredEvent[]>, orphanAfterMs: number): AdminAlert {
  const minutes = Math.max(1, Math.round(orphanAfterMs / 60_000));
  const events = [...groups.values()].reduce((n, g) => n + g.length, 0);
  return {
    key: `orphan-storm:${[...groups.keys()][0] ?? ""}:${groups.size}`,
    subject: { kind: "orphan_summary", correlationIds: [...groups.keys()] },
    title: "Supplier updates for unknown orders",
    text:
      `The latest sweep found ${events} more update${events === 1 ? "" : "s"}, older than ${minutes} min, that match no order here. ` +
      "They are kept and are posted if their order shows up. Usual causes: another deployment's webhook URL, " +
      "orders placed outside Order Desk, or someone sending events with the webhook secret (rotate it if none of " +
      "the others fits; see docs/webhooks.md, Orphans). Ignore all closes them; App Home's Needs attention lists them.",
  };
}

/** One group gets its own alert (Attach to order…, Ignore); more in one sweep get one summary alert. */
const STORM_FROM = 2;

export function createOrphanSweeper(options: OrphanSweepOptions): OrphanSweeper {
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "orphan-sweep" });
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 60_000;
  const stalledAfterMs = options.stalledAfterMs ?? 5 * 60_000;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<SweepResult> | null = null;

  /** Reports orphans older than `orphanAfterMs`, each group once its alert went out. Returns how many. */
  async function reportOrphans(): Promise<number> {
    const stale = await listOrphansOlderThan(options.store, new Date(now() - options.orphanAfterMs));
    const groups = new Map<string, StoredEvent[]>();
    for (const event of stale) {
      groups.set(event.correlationId, [...(groups.get(event.correlationId) ?? []), event]);
    }
    let reported = 0;
    if (groups.size >= STORM_FROM) {
      const alert = describeStorm(groups, options.orphanAfterMs);
      const firstIds = [...groups.keys()].slice(0, 5);
      try {
        await options.alertAdmins?.(alert);
      } catch (error) {
        logger.error(
          { err: error, correlationIds: groups.size, firstIds },
          "could not report orphan events to the admins; the next sweep tries again",
        );
        return 0;
      }
      logger.warn({ correlationIds: groups.size, firstIds }, alertPlainText(alert));
      for (const events of groups.values()) {
        for (const event of events) if (await markOrphanReported(options.store, event.id)) reported++;
      }
      return reported;
    }
    for (const [correlationId, events] of groups) {
      const alert = describeOrphans(correlationId, events, options.orphanAfterMs);
      const eventIds = events.map((e) => e.id);
      try {
        await options.alertAdmins?.(alert);
      } catch (error) {
        // Not marked: the next sweep tries again.
        logger.error(
          { err: error, correlationId, eventIds },
          "could not report orphan events to the admins; the next sweep tries again",
        );
        continue;
      }
      logger.warn({ correlationId, eventIds }, alertPlainText(alert));
      for (const event of events) {
        if (await markOrphanReported(options.store, event.id)) reported++;
      }
    }
    return reported;
  }

  async function sweep(): Promise<SweepResult> {
    const attached = await options.store.transaction(async (tx) => {
      const rows = await reattach(tx);
      const firstPerOrder = new Map<string, string>();
      for (const r of rows) if (!firstPerOrder.has(r.orderId)) firstPerOrder.set(r.orderId, r.id);
      for (const [orderId, eventId] of firstPerOrder) {
        await enqueuePostUpdate(
          options.jobs,
          { orderId, eventId },
          { tx, ...(options.settleMs !== undefined && { settleMs: options.settleMs }), now },
        );
      }
      return rows.length;
    });
    if (attached > 0) logger.info({ attached }, "attached events whose order became known");

    const reported = (await asOnlyReporter(options.store, reportOrphans)) ?? 0;
    let restarted = 0;
    const bucket = Math.floor(now() / stalledAfterMs);
    for (const stalled of await stalledOrders(options.store, new Date(now() - stalledAfterMs))) {
      // A new id per period: the event's own job may have completed already (it started before the event landed).
      await enqueuePostUpdate(
        options.jobs,
        { orderId: stalled.orderId, eventId: stalled.id },
        { id: jobId(QUEUES.postUpdate, "stalled", stalled.id, bucket), now },
      );
      restarted++;
    }
    if (restarted > 0)
      logger.warn({ orders: restarted }, "re-enqueued the posting of orders with unposted events");
    return { attached, reported, restarted };
  }

  const runOnce = (): Promise<SweepResult> => {
    running ??= sweep().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    runOnce,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        runOnce().catch((error: unknown) =>
          logger.error({ err: error }, "orphan sweep failed; next one in a while"),
        );
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => {});
    },
  };
}
