/**
 * Which process runs each active job, on PostgreSQL, so that the jobs of a process that died are run again in
 * seconds, and a job is never run by two live processes at once.
 *
 * pg-boss 12 has no notion of a job's process being alive: its heartbeats (`heartbeatSeconds`) take a job back
 * when its worker stops touching it for a while, so a worker starved of CPU for that long loses its job to a
 * second worker while its own run goes on, and a dead worker's job waits the whole heartbeat. So we keep this:
 *
 * - Each process holds a session advisory lock on its own key on a dedicated connection. PostgreSQL drops the
 *   lock when the session ends, and a killed process's socket is closed by its kernel: a key without its lock
 *   belongs to a dead process. (pg_locks lists every session's advisory locks.)
 * - Right after pg-boss's `fetch`, the process claims each job in our own table (`job_claims`, one row per job).
 *   The claim is refused while another live process holds it: that job is already running there (pg-boss took it
 *   back from a starved worker), so it is not run twice; its first run records its outcome.
 * - Every `sweepIntervalMs`, each process re-takes its own lock if its connection was lost, and queues again
 *   the active jobs claimed by a key that has had no lock for `graceMs` across consecutive successful sweeps.
 *   The grace covers a PostgreSQL restart, after which every live process needs a moment to lock its key again;
 *   a sweep that fails forgets what it saw, so an outage never counts as death.
 * - Each sweep also takes back this process's own claimed jobs that none of its workers runs, once they have
 *   stayed so for `graceMs`: a run whose outcome could not be recorded while the database was away.
 * - pg-boss's fetch and the claim are one transaction: a process killed between them (its connection closed by
 *   its kernel) leaves the job queued, not active without a claim, so the next fetch anywhere takes it at once.
 *   (Killed right after acking a click, the process was often in exactly that window, and the job then waited
 *   for pg-boss's heartbeat and its next supervision, up to two minutes.)
 */
import { randomInt } from "node:crypto";
import pg from "pg";
import type { Logger } from "pino";
import type { Queryable, Store } from "../../store/db.ts";
import type { FetchedJob } from "../worker.ts";
import { requeueInterrupted } from "./interrupted.ts";

/** The advisory lock namespace (first key of the two-int form): "OD" + "JB" in ASCII. */
const LOCK_NAMESPACE = 0x4f444a42;

/** A claim's owner is alive: its process holds its advisory lock. (`$1`: the namespace.) */
const OWNER_ALIVE = `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory'
  AND l.classid = $1::bigint::oid AND l.objid::bigint = c.owner_key AND l.objsubid = 2 AND l.granted)`;

export interface JobOwnersOptions {
  store: Store;
  /** pg-boss's job table, schema-qualified. */
  jobTable: string;
  /** pg-boss's schema (for the `job_state` type). */
  schema: string;
  logger: Logger;
  /** pg-boss's fetch for the queue (the jobs it made active for this process), inside `tx`. */
  fetch(queue: string, batchSize: number, tx: Queryable): Promise<FetchedJob[]>;
  /** Default 5 s. */
  sweepIntervalMs?: number;
  /** How long a key must stay unlocked before its jobs are taken back (default 15 s). */
  graceMs?: number;
  /**
   * Whether this process is running the job. Jobs claimed with our key that we are not running (a run whose
   * outcome could not be recorded) are queued again after `graceMs`, like a dead process's, rather than when
   * pg-boss's heartbeat or expiry finds them.
   */
  isRunning?: (queue: string, id: string) => boolean;
  /** Told which queues got jobs back, to wake their workers. */
  onRecovered?: (queues: string[]) => void;
  now?: () => number;
}

export interface JobOwners {
  readonly key: number;
  start(): Promise<void>;
  /** pg-boss's fetch, then our claim: only the jobs no other live process runs are returned. */
  fetch(queue: string, batchSize: number): Promise<FetchedJob[]>;
  /** The job's run ended here (its outcome recorded): the claim goes. */
  release(ids: string[]): Promise<void>;
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
      `SELECT DISTINCT c.owner_key AS key FROM job_claims c WHERE NOT ${OWNER_ALIVE}`,
      [LOCK_NAMESPACE],
    );
    return rows.map((r) => Number(r.key));
  }

  /** Our own claimed jobs that no worker of ours runs, past the grace: claim dropped, queued again if active. */
  async function requeueStray(at: number): Promise<{ name: string }[]> {
    const isRunning = options.isRunning;
    if (!isRunning) return [];
    const { rows } = await store.query<{ queue: string; job_id: string }>(
      "SELECT queue, job_id FROM job_claims WHERE owner_key = $1",
      [key],
    );
    const stray = new Set(rows.filter((r) => !isRunning(r.queue, r.job_id)).map((r) => r.job_id));
    for (const id of [...straySince.keys()]) if (!stray.has(id)) straySince.delete(id);
    for (const id of stray) if (!straySince.has(id)) straySince.set(id, at);
    const due = [...stray].filter((id) => at - (straySince.get(id) ?? at) >= graceMs);
    if (due.length === 0) return [];
    for (const id of due) straySince.delete(id);
    const requeued = await requeueInterrupted(
      store,
      { jobTable, schema },
      { sql: "id = ANY($1::uuid[])", params: [due] },
      logger,
      "queued again: claimed by this process, but no worker of it was running it",
    );
    await store.query("DELETE FROM job_claims WHERE job_id = ANY($1::uuid[]) AND owner_key = $2", [due, key]);
    return requeued;
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
        {
          sql: "id IN (SELECT job_id FROM job_claims WHERE owner_key = ANY($1::bigint[]))",
          params: [expired],
        },
        logger,
      );
      await store.query("DELETE FROM job_claims WHERE owner_key = ANY($1::bigint[])", [expired]);
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
      return store.transaction(async (tx) => {
        const jobs = await options.fetch(queue, batchSize, tx);
        if (jobs.length === 0) return jobs;
        // A claim is taken over from a dead process (its jobs were taken back by pg-boss before our sweep did) or
        // kept by ours; a live other process's stays, and its job is left to the run it is already doing.
        const { rows } = await tx.query<{ job_id: string }>(
          `INSERT INTO job_claims AS c (job_id, queue, owner_key)
           SELECT id, $2, $3 FROM unnest($4::uuid[]) AS id
           ON CONFLICT (job_id) DO UPDATE SET owner_key = excluded.owner_key, queue = excluded.queue,
             claimed_at = now()
           WHERE c.owner_key = excluded.owner_key OR NOT ${OWNER_ALIVE}
           RETURNING job_id`,
          [LOCK_NAMESPACE, queue, key, jobs.map((j) => j.id)],
        );
        const claimed = new Set(rows.map((r) => r.job_id));
        for (const job of jobs) {
          if (!claimed.has(job.id)) {
            logger.warn(
              { queue, jobId: job.id, ownerKey: key },
              "job handed out again while a live process still runs it: not run twice",
            );
          }
        }
        return jobs.filter((j) => claimed.has(j.id));
      });
    },
    async release(ids) {
      await store.query("DELETE FROM job_claims WHERE job_id = ANY($1::uuid[]) AND owner_key = $2", [
        ids,
        key,
      ]);
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
