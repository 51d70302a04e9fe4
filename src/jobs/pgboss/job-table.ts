/**
 * The statements we run on pg-boss's job table ourselves, for what pg-boss 12 has no call for (checked against
 * its API: `fail`, `retry`, `update`, `findJobs`, `getQueues`):
 * - use up a job's retries: `fail` always schedules the next attempt while one is left;
 * - defer a running job without using up an attempt, and put running jobs back now: `fail` counts the run and
 *   waits the retry delay, `update` edits queued jobs only;
 * - list failed jobs across queues, newest first: `findJobs` filters by id, key or payload, not by state;
 * - mark an order's failed jobs completed with a note: `complete` settles active (or queued) jobs only;
 * - count jobs per queue and state with the lag: `getQueues` counts are refreshed by the monitor (once a minute),
 *   not read when asked.
 * They use pg-boss 12's documented job columns; pg-boss is pinned to a minor (`~12.38`).
 */
import type { Queryable, Store } from "../../store/db.ts";
import type { FailedJob, QueueStats } from "../jobs.ts";
import { isQueueName, QUEUE_NAMES, type QueueName } from "../queues.ts";

export interface JobTable {
  /** Sets the retry limit to the runs so far: pg-boss's next `fail` leaves the job failed for good. */
  exhaustRetries(queue: QueueName, id: string): Promise<void>;
  /** A running job goes back to wait `delayMs`; the limit rises with the run it will count, so none is lost. */
  defer(queue: QueueName, id: string, delayMs: number, deferrals: number, reason: string): Promise<void>;
  /** Running jobs go back in the queue now, with the run they will count given back. */
  requeue(queue: QueueName, ids: string[], reason: string): Promise<void>;
  listFailed(queue: QueueName | null, limit: number): Promise<FailedJob[]>;
  /** The order's failed jobs of `queue` become completed, their error kept beside `note`. */
  settleFailed(q: Queryable, queue: QueueName, orderId: string, note: string): Promise<number>;
  stats(): Promise<Record<QueueName, QueueStats>>;
}

/** `table` is pg-boss's job table, schema-qualified (`pgboss.job`). */
export function createJobTable(store: Store, table: string): JobTable {
  return {
    async exhaustRetries(queue, id) {
      await store.query(`UPDATE ${table} SET retry_limit = retry_count WHERE name = $1 AND id = $2`, [
        queue,
        id,
      ]);
    },

    async defer(queue, id, delayMs, deferrals, reason) {
      // The next fetch counts a run (retry_count + 1); raising the limit with it keeps the attempts left.
      await store.query(
        `UPDATE ${table} SET state = 'retry', retry_limit = retry_limit + 1,
           start_after = now() + $3::double precision * interval '1 millisecond', output = $4::jsonb
         WHERE name = $1 AND id = $2 AND state = 'active'`,
        [queue, id, delayMs, JSON.stringify({ deferrals, reason })],
      );
    },

    async requeue(queue, ids, reason) {
      await store.query(
        `UPDATE ${table} SET state = 'retry', retry_limit = retry_limit + 1, start_after = now(),
           output = $3::jsonb
         WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`,
        [queue, ids, JSON.stringify({ message: reason })],
      );
    },

    async listFailed(queue, limit) {
      const { rows } = await store.query(
        `SELECT id, name, data, output, retry_count, created_on, completed_on FROM ${table}
         WHERE state = 'failed' AND ($1::text IS NULL OR name = $1)
         ORDER BY completed_on DESC NULLS LAST LIMIT $2`,
        [queue, limit],
      );
      return rows.map((r) => ({
        id: r.id,
        queue: r.name,
        data: r.data,
        error: r.output,
        runs: r.retry_count + 1,
        createdAt: r.created_on,
        failedAt: r.completed_on,
      }));
    },

    async settleFailed(q, queue, orderId, note) {
      const { rows } = await q.query(
        `UPDATE ${table} SET state = 'completed', completed_on = now(),
           output = jsonb_build_object('settled', $3::text, 'error', output)
         WHERE name = $1 AND state = 'failed' AND data->>'orderId' = $2 RETURNING id`,
        [queue, orderId, note],
      );
      return rows.length;
    },

    async stats() {
      const { rows } = await store.query(
        `SELECT name,
           count(*) FILTER (WHERE state < 'active' AND start_after <= now())::int AS ready,
           count(*) FILTER (WHERE state < 'active' AND start_after > now())::int AS scheduled,
           count(*) FILTER (WHERE state = 'active')::int AS active,
           count(*) FILTER (WHERE state = 'failed')::int AS failed,
           COALESCE(EXTRACT(EPOCH FROM now() - min(start_after)
             FILTER (WHERE state < 'active' AND start_after <= now())) * 1000, 0)::float8 AS oldest_ready_ms
         FROM ${table} GROUP BY name`,
      );
      const empty = (): QueueStats => ({ ready: 0, scheduled: 0, active: 0, failed: 0, oldestReadyAgeMs: 0 });
      const result = Object.fromEntries(QUEUE_NAMES.map((q) => [q, empty()])) as Record<
        QueueName,
        QueueStats
      >;
      for (const r of rows) {
        if (!isQueueName(r.name)) continue;
        result[r.name] = {
          ready: r.ready,
          scheduled: r.scheduled,
          active: r.active,
          failed: r.failed,
          oldestReadyAgeMs: Math.round(r.oldest_ready_ms),
        };
      }
      return result;
    },
  };
}
