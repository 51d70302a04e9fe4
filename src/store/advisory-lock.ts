/**
 * A session-level PostgreSQL advisory lock held on one pooled connection for the length of `fn`. `pg_try_…`
 * never waits: another holder means `{ acquired: false }`. If the unlock fails the connection is dropped, and the
 * server releases the lock with it; a connection that errored meanwhile is dropped too rather than reused.
 * A string key is hashed by the server (`hashtext`), so callers can lock by an id.
 */
import type { Store } from "./db.ts";

export type AdvisoryLockResult<T> = { acquired: true; value: T } | { acquired: false };

export async function withTryAdvisoryLock<T>(
  store: Pick<Store, "pool">,
  namespace: number,
  key: number | string,
  fn: () => Promise<T>,
): Promise<AdvisoryLockResult<T>> {
  const keySql = typeof key === "string" ? "hashtext($2)" : "$2";
  const client = await store.pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on("error", onError);
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock($1, ${keySql}) AS locked`,
      [namespace, key],
    );
    if (!rows[0]?.locked) return { acquired: false };
    try {
      return { acquired: true, value: await fn() };
    } finally {
      await client
        .query(`SELECT pg_advisory_unlock($1, ${keySql})`, [namespace, key])
        .catch((error: Error) => {
          broken = error;
        });
    }
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

/**
 * A session-level advisory lock (`keySql` evaluated by the server) held on one pooled connection for the length
 * of `fn`, waiting for it if another session holds it. What `fn` runs on other connections starts its
 * transactions after the lock was granted, so it sees every catalog change the previous holder committed (a
 * wait inside one transaction would not: `CREATE SCHEMA IF NOT EXISTS` then fails with a duplicate key).
 */
export async function withAdvisoryLock<T>(
  store: Pick<Store, "pool">,
  keySql: string,
  fn: () => Promise<T>,
): Promise<T> {
  const client = await store.pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on("error", onError);
  try {
    await client.query(`SELECT pg_advisory_lock(${keySql})`);
    try {
      return await fn();
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${keySql})`).catch((error: Error) => {
        broken = error;
      });
    }
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}
