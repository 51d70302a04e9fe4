/**
 * Stores for Order Desk child processes: a PGlite directory seeded from the migrated template (so a start does
 * not pay initdb), or a fresh database on the PostgreSQL server of `DATABASE_URL`, dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openStore } from "../../../src/store/db.ts";
import { pgliteTemplate, testDatabaseUrl } from "../../helpers/db.ts";

export interface ChildStore {
  /** Variables for `order-desk start`. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export async function pgliteChildStore(): Promise<ChildStore> {
  const dir = await mkdtemp(join(tmpdir(), "od-rel-pglite-"));
  const dataDir = join(dir, "data");
  const seeded = await openStore({ dataDir, pgliteTemplate: await pgliteTemplate() });
  await seeded.close();
  return { env: { ORDER_DESK_DATA_DIR: dataDir }, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** `CREATE DATABASE` on the server of `serverUrl` (default `DATABASE_URL`); `cleanup` drops it. */
export async function freshDatabase(
  serverUrl: string = testDatabaseUrl(),
): Promise<ChildStore & { url: string }> {
  const name = `od_rel_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    env: { DATABASE_URL: url.toString() },
    async cleanup() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A seeded random generator (mulberry32), so a run's kill moments and inputs can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * What Order Desk's own database says (PostgreSQL only; a PGlite directory is locked by the app): orders by
 * status and jobs by queue and state, to explain an unsettled run.
 */
export async function describeAppDatabase(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const orders = await client.query("SELECT status, count(*)::int AS n FROM orders GROUP BY 1 ORDER BY 1");
    const jobs = await client.query(
      `SELECT name, state::text, count(*)::int AS n, min(started_on) AS oldest_start
         FROM pgboss.job GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const unposted = await client.query(
      "SELECT count(*)::int AS n FROM supplier_events WHERE posted_at IS NULL",
    );
    return (
      `app database: orders ${orders.rows.map((r) => `${r.status}×${r.n}`).join(", ")}; ` +
      `jobs ${jobs.rows
        .map(
          (r) =>
            `${r.name}/${r.state}×${r.n}${r.state === "active" ? ` (oldest started ${new Date(r.oldest_start).toISOString().slice(11, 19)})` : ""}`,
        )
        .join(", ")}; unposted events ${unposted.rows[0]?.n}`
    );
  } catch (error) {
    return `app database not readable: ${(error as Error).message}`;
  } finally {
    await client.end();
  }
}

/** The supplier events of the orders with these tickets, as Order Desk's database holds them (PostgreSQL only). */
export async function describeOrderEvents(url: string, tickets: readonly string[]): Promise<string[]> {
  if (tickets.length === 0) return [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT o.customer_reference AS ticket, e.type, e.payload->'data'->>'status' AS status,
              e.occurred_at, e.received_at, e.posted_at
         FROM supplier_events e JOIN orders o ON o.id = e.order_id
        WHERE o.customer_reference = ANY($1) ORDER BY o.customer_reference, e.occurred_at`,
      [tickets],
    );
    const time = (d: Date | null) => (d ? new Date(d).toISOString().slice(11, 23) : "never");
    return rows.map(
      (r) =>
        `${r.ticket} ${String(r.type).replace("order.", "")}:${r.status} occurred ${time(r.occurred_at)} ` +
        `received ${time(r.received_at)} posted ${time(r.posted_at)}`,
    );
  } finally {
    await client.end();
  }
}
