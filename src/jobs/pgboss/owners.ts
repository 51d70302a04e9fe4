/**
 * Which process runs each active job, on PostgreSQL, so that the jobs of a process that died are run again in
 * seconds rather than when their run expires (up to `expireInSeconds`, minutes for a placement).
 *
 * - Each process holds a session advisory lock on its own key on a dedicated connection. PostgreSQL drops the
 *   lock when the session ends, and a killed process's socket is closed by its kernel: a key without its lock
 *   belongs to a dead process. (pg_locks lists every session's advisory locks.)
 * - Right after fetching, the process writes its key into each job's `output` (pg-boss keeps it until the job
 *   completes, fails or is deferred, which overwrite it).
 * - Every `sweepIntervalMs`, each process re-takes its own lock if its connection was lost, and queues again
 *   the active jobs whose key has had no lock for `graceMs` across consecutive successful sweeps. The grace
 *   covers a PostgreSQL restart, after which every live process needs a moment to lock its key again; a sweep
 *   that fails forgets what it saw, so an outage never counts as death.
 *
 * - Each sweep also takes back this process's own active jobs that none of its workers runs, once they have
 *   stayed so for `graceMs`: a fetch that committed but whose answer was lost, or a run whose outcome could not
 *   be recorded while the database was away. Without that they would wait for the expiry too.
 * - The key is written by the fetch itself (`fetch`: pg-boss's fetch statement for our standard-policy queues,
 *   plus the key), so no job is ever active without one. With a separate claim statement, a process killed
 *   between the two left its jobs to pg-boss's expiry (minutes for a placement).
 */
import { randomInt } from "node:crypto";
import pg from "pg";
import type { Logger } from "pino";
import type { Store } from "../../store/db.ts";
import type { FetchedJob } from "../worker.ts";
import { requeueInterrupted } from "./interrupted.ts";

/** The advisory lock namespace (first key of the two-int form): "OD" + "JB" in ASCII. */
const LOCK_NAMESPACE = 0x4f444a42;

export interface JobOwnersOptions {
  store: Store;
  /** pg-boss's job table, schema-qualified. */
  jobTable: string;
  /** pg-boss's schema (for the `job_state` type). */
  schema: string;
  logger: Logger;
  /** Default 5 s. */
  sweepIntervalMs?: number;
  /** How long a key must stay unlocked before its jobs are taken back (default 15 s). */
  graceMs?: number;
  /**
   * Whether this process is running the job. Jobs marked with our key that we are not running (a fetch that
   * committed but whose answer never arrived; a run whose outcome could not be recorded) are queued again after
   * `graceMs`, like a dead process's, rather than at their expiry.
   */
  isRunning?: (queue: string, id: string) => boolean;
  /** Told which queues got jobs back, to wake their workers. */
  onRecovered?: (queues: string[]) => void;
  now?: () => number;
}

export interface JobOwners {
  readonly key: number;
  start(): Promise<void>;
  /** Takes up to `batchSize` ready jobs of the queue, marked as this process's in the same statement. */
  fetch(queue: string, batchSize: number): Promise<FetchedJob[]>;
  stop(): Promise<void>;
}

export function createJobOwners(options: JobOwnersOptions): JobOwners {
  const { store, jobTable, schema, logger } = options;
  if (store.kind !== "postgres" || store.connectionString === null) {
    throw new TypeError("job ownership is for PostgreSQL; the embedded store recovers jobs at start-up");
  }
  const connectionString: string = store.connectionString;
  const key = randomInt(1, 2 ** 31 - 1);
  const sweepIntervalMs = options.sweepIntervalMs ?? 5_000;
  const graceMs = options.graceMs ?? 15_000;
  const now = options.now ?? Date.now;
  const deadSince = new Map<number, number>();
  const straySince = new Map<string, number>();
  let session: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<number> | null = null;
  let stopped = false;

  async function lock(): Promise<void> {
    if (session) return;
    const client = new pg.Client({ connectionString, application_name: "order-desk-jobs-owner" });
    client.on("error", (error) => {
      logger.warn(
        { err: error, ownerKey: key },
        "job owner connection lost; locking again on the next sweep",
      );
      if (session === client) session = null;
    });
    client.on("end", () => {
      if (session === client) session = null;
    });
    await client.connect();
    try {
      await client.query("SELECT pg_advisory_lock($1, $2)", [LOCK_NAMESPACE, key]);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    session = client;
  }

  async function deadKeys(): Promise<number[]> {
    const { rows } = await store.query<{ key: string }>(
      `SELECT DISTINCT output->>'worker' AS key FROM ${jobTable}
       WHERE state = 'active' AND output->>'worker' IS NOT NULL
         AND (output->>'worker')::bigint NOT IN (
           SELECT objid::bigint FROM pg_locks
           WHERE locktype = 'advisory' AND classid = $1::bigint::oid AND objsubid = 2 AND granted)`,
      [LOCK_NAMESPACE],
    );
    return rows.map((r) => Number(r.key));
  }

  /** Our own active jobs that no worker of ours runs, past the grace: queued again. */
  async function requeueStray(at: number): Promise<{ name: string }[]> {
    const isRunning = options.isRunning;
    if (!isRunning) return [];
    const { rows } = await store.query<{ name: string; id: string }>(
      `SELECT name, id FROM ${jobTable} WHERE state = 'active' AND output->>'worker' = $1`,
      [String(key)],
    );
    const stray = new Set(rows.filter((r) => !isRunning(r.name, r.id)).map((r) => r.id));
    for (const id of [...straySince.keys()]) if (!stray.has(id)) straySince.delete(id);
    for (const id of stray) if (!straySince.has(id)) straySince.set(id, at);
    const due = [...stray].filter((id) => at - (straySince.get(id) ?? at) >= graceMs);
    if (due.length === 0) return [];
    for (const id of due) straySince.delete(id);
    return requeueInterrupted(
      store,
      { jobTable, schema },
      { sql: "id = ANY($1::uuid[]) AND output->>'worker' = $2", params: [due, String(key)] },
      logger,
      "queued again: marked as this process's, but no worker of it was running it",
    );
  }

  async function sweepOnce(): Promise<number> {
    try {
      await lock();
      const strays = await requeueStray(now());
      if (strays.length > 0) options.onRecovered?.([...new Set(strays.map((r) => r.name))]);
      const dead = await deadKeys();
      const at = now();
      for (const k of [...deadSince.keys()]) if (!dead.includes(k)) deadSince.delete(k);
      for (const k of dead) if (!deadSince.has(k)) deadSince.set(k, at);
      const expired = dead.filter((k) => k !== key && at - (deadSince.get(k) ?? at) >= graceMs);
      if (expired.length === 0) return strays.length;
      const rows = await requeueInterrupted(
        store,
        { jobTable, schema },
        { sql: "(output->>'worker')::bigint = ANY($1::bigint[])", params: [expired] },
        logger,
      );
      for (const k of expired) deadSince.delete(k);
      if (rows.length > 0) options.onRecovered?.([...new Set(rows.map((r) => r.name))]);
      return rows.length + strays.length;
    } catch (error) {
      // What an unreachable database showed is no evidence of death: start the grace again.
      deadSince.clear();
      straySince.clear();
      logger.warn({ err: error }, "job owner sweep failed; trying again on the next sweep");
      return 0;
    }
  }

  return {
    key,
    async start() {
      await lock();
      timer = setInterval(() => {
        if (!sweeping && !stopped) {
          sweeping = sweepOnce().finally(() => {
            sweeping = null;
          });
        }
      }, sweepIntervalMs);
      timer.unref();
    },
    async fetch(queue, batchSize) {
      // pg-boss 10's fetch (plans.js `fetchNextJob`) for standard-policy queues, which all of ours are, with the
      // key added. `output` is returned as it was before the fetch (the worker reads its `deferrals`).
      const { rows } = await store.query<FetchedJob & { expireInSeconds: string | number }>(
        `WITH next AS (
           SELECT id, output AS previous_output FROM ${jobTable}
           WHERE name = $1 AND state < 'active' AND start_after < now()
           ORDER BY priority DESC, created_on, id
           LIMIT $2
           FOR UPDATE SKIP LOCKED
         )
         UPDATE ${jobTable} j SET
           state = 'active',
           started_on = now(),
           retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END,
           output = CASE WHEN jsonb_typeof(j.output) = 'object' THEN j.output ELSE '{}'::jsonb END
             || jsonb_build_object('worker', $3::bigint)
         FROM next
         WHERE j.name = $1 AND j.id = next.id
         RETURNING j.id, j.data, j.retry_count AS "retryCount", j.retry_limit AS "retryLimit",
           EXTRACT(epoch FROM j.expire_in) AS "expireInSeconds", j.created_on AS "createdOn",
           next.previous_output AS output`,
        [queue, batchSize, key],
      );
      return rows.map((r) => ({ ...r, expireInSeconds: Number(r.expireInSeconds) }));
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await sweeping?.catch(() => {});
      const client = session;
      session = null;
      await client?.end().catch(() => {});
    },
  };
}
