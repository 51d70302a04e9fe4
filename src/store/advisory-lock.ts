/**
 * Session-level PostgreSQL advisory locks, each held on one pooled connection for the length of `fn`. If the
 * unlock fails the connection is dropped, and the server releases the lock with it; a connection that errored
 * meanwhile is dropped too rather than reused.
 */
import type pg from "pg";
import type { Store } from "./db.ts";

export type AdvisoryLockResult<T> = { acquired: true; value: T } | { acquired: false };

/**
 * `pg_try_…` never waits: another holder means `{ acquired: false }`. A string key is hashed by the server
 * (`hashtext`), so callers can lock by an id. `{ perSchema }` names one lock per schema (hashed with
 * `current_schema()`): advisory locks are database-wide, and deployments (or test runs) that share a database in
 * schemas of their own must not take each other's.
 */
export function withTryAdvisoryLock<T>(
  store: Pick<Store, "pool">,
  namespace: number,
  key: number | string | { perSchema: string },
  fn: () => Promise<T>,
): Promise<AdvisoryLockResult<T>> {
  const keySql =
    typeof key === "object"
      ? "hashtext(current_schema() || ':' || $2)"
      : typeof key === "string"
        ? "hashtext($2)"
        : "$2";
  const keyValue = typeof key === "object" ? key.perSchema : key;
  return onOwnConnection(store, async (client, unlock) => {
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock($1, ${keySql}) AS locked`,
      [namespace, keyValue],
    );
    if (!rows[0]?.locked) return { acquired: false };
    try {
      return { acquired: true, value: await fn() };
    } finally {
      await unlock(`SELECT pg_advisory_unlock($1, ${keySql})`, [namespace, keyValue]);
    }
  });
}

/**
 * Waits for the lock (`keySql` evaluated by the server). What `fn` runs on other connections starts its
 * transactions after the lock was granted, so it sees every catalog change the previous holder committed (a
 * wait inside one transaction would not: `CREATE SCHEMA IF NOT EXISTS` then fails with a duplicate key).
 */
export function withAdvisoryLock<T>(
  store: Pick<Store, "pool">,
  keySql: string,
  fn: () => Promise<T>,
): Promise<T> {
  return onOwnConnection(store, async (client, unlock) => {
    await client.query(`SELECT pg_advisory_lock(${keySql})`);
    try {
      return await fn();
    } finally {
      await unlock(`SELECT pg_advisory_unlock(${keySql})`, []);
    }
  });
}

/** A pooled connection for `body`, released after it, or dropped when it errored or its unlock failed. */
async function onOwnConnection<T>(
  store: Pick<Store, "pool">,
  body: (client: pg.PoolClient, unlock: (sql: string, values: unknown[]) => Promise<void>) => Promise<T>,
): Promise<T> {
  const client = await store.pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on("error", onError);
  const unlock = (sql: string, values: unknown[]) =>
    client.query(sql, values).then(
      () => undefined,
      (error: Error) => {
        broken = error;
      },
    );
  try {
    return await body(client, unlock);
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}
