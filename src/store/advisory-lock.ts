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
