/**
 * Carries the jobs of a pg-boss 10 schema into pg-boss 12's, at start-up, in place.
 *
 * pg-boss 11 and 12 cannot migrate a pg-boss 10 schema (their maintainers suggest copying the jobs across), and
 * pg-boss has no call that inserts a job with its state, attempts and history. So, under the start-up lock:
 *
 * 1. `setAside` (before pg-boss starts): a schema holding pg-boss 10 (schema version ≤ 24) is renamed to
 *    `<schema>_v10_<yyyymmdd>` and recorded in `job_schema_carry_over`, in one transaction. pg-boss then installs
 *    its current schema under the usual name.
 * 2. `copyAside` (once our queues exist): every job of a recorded schema not yet copied is inserted into the new
 *    job table with its id, queue, payload, singleton key, attempts, start time, state and output, and the record
 *    is marked copied, in one transaction: a start killed in between copies them on the next start; a second
 *    start copies nothing. A job `active` in the old schema belonged to a process that is gone (the old version
 *    is stopped): it is queued again now, its interrupted run counting as an attempt, as at any start-up.
 *    Completed and cancelled jobs are copied too, so a deterministic id sent again still finds its job.
 *
 * The old schema stays, renamed, for the operator (docs/store.md, "Upgrading from 0.1").
 */
import type { Logger } from "pino";
import type { Queryable, Store } from "../../store/db.ts";

/** pg-boss 10's last schema version; 11 starts at 25. */
const LAST_V10_SCHEMA_VERSION = 24;

const INTERRUPTED = "interrupted: the process running it stopped (carried over from pg-boss 10)";

function asideName(schema: string, at: Date): string {
  const day = at.toISOString().slice(0, 10).replaceAll("-", "");
  return `${schema}_v10_${day}`;
}

async function schemaVersion(q: Queryable, schema: string): Promise<number | null> {
  const { rows } = await q.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [
    `${schema}.version`,
  ]);
  if (!rows[0]?.present) return null;
  const version = await q.query<{ version: number }>(`SELECT version FROM ${schema}.version LIMIT 1`);
  return version.rows[0]?.version ?? null;
}

async function schemaExists(q: Queryable, name: string): Promise<boolean> {
  const { rows } = await q.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [name]);
  return rows.length > 0;
}

/** Renames a pg-boss 10 schema aside; returns its new name, or null when `schema` holds no pg-boss 10. */
export async function setAside(store: Store, schema: string, logger: Logger, now = new Date()) {
  return store.transaction(async (tx) => {
    const version = await schemaVersion(tx, schema);
    if (version === null || version > LAST_V10_SCHEMA_VERSION) return null;
    let aside = asideName(schema, now);
    for (let n = 2; await schemaExists(tx, aside); n++) aside = `${asideName(schema, now)}_${n}`;
    await tx.query(`ALTER SCHEMA ${schema} RENAME TO ${aside}`);
    await tx.query("INSERT INTO job_schema_carry_over (old_schema, new_schema) VALUES ($1, $2)", [
      aside,
      schema,
    ]);
    logger.warn(
      { schema, aside, version },
      "pg-boss 10 schema found: renamed aside, its jobs are carried over",
    );
    return aside;
  });
}

/** Copies the jobs of every schema set aside for `schema` and not copied yet; returns how many jobs. */
export async function copyAside(store: Store, schema: string, logger: Logger): Promise<number> {
  const { rows: pending } = await store.query<{ old_schema: string }>(
    "SELECT old_schema FROM job_schema_carry_over WHERE new_schema = $1 AND copied_at IS NULL ORDER BY renamed_at",
    [schema],
  );
  let total = 0;
  for (const { old_schema: old } of pending) {
    const copied = await store.transaction(async (tx) => {
      // The queue's current settings (expiry, retention, heartbeat) apply to the copied jobs, as to new ones;
      // a job of a queue this version no longer has stays in the old schema only.
      const { rows } = await tx.query<{ state: string }>(
        `INSERT INTO ${schema}.job (
           id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, retry_delay_max,
           expire_seconds, deletion_seconds, heartbeat_seconds, policy, singleton_key, singleton_on,
           start_after, created_on, started_on, completed_on, keep_until, output)
         SELECT o.id, o.name, o.priority, o.data,
           (CASE WHEN o.state::text <> 'active' THEN o.state::text
                 WHEN o.retry_count < o.retry_limit THEN 'retry' ELSE 'failed' END)::${schema}.job_state,
           o.retry_limit, o.retry_count, o.retry_delay, o.retry_backoff, q.retry_delay_max,
           q.expire_seconds, q.deletion_seconds, q.heartbeat_seconds, q.policy, o.singleton_key, o.singleton_on,
           CASE WHEN o.state::text = 'active' THEN now() ELSE o.start_after END,
           o.created_on, o.started_on,
           CASE WHEN o.state::text = 'active' AND o.retry_count >= o.retry_limit THEN now()
                WHEN o.state::text = 'active' THEN NULL ELSE o.completed_on END,
           GREATEST(o.keep_until, now() + q.retention_seconds * interval '1 second'),
           CASE WHEN o.state::text = 'active' THEN jsonb_build_object('message', $1::text) ELSE o.output END
         FROM ${old}.job o JOIN ${schema}.queue q ON q.name = o.name
         ON CONFLICT DO NOTHING
         RETURNING state::text AS state`,
        [INTERRUPTED],
      );
      await tx.query(
        "UPDATE job_schema_carry_over SET copied_at = now(), jobs_copied = $2 WHERE old_schema = $1",
        [old, rows.length],
      );
      const byState: Record<string, number> = {};
      for (const r of rows) byState[r.state] = (byState[r.state] ?? 0) + 1;
      logger.warn({ from: old, to: schema, jobs: rows.length, byState }, "pg-boss 10 jobs carried over");
      return rows.length;
    });
    total += copied;
  }
  return total;
}
