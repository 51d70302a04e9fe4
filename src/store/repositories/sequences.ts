/**
 * Gapless per-prefix counters for document numbers (`externalDocumentNumber`). Unlike a PostgreSQL sequence, a
 * value taken in a transaction that rolls back is given out again, so numbers have no holes; the row lock
 * serialises concurrent callers of the same prefix until their transactions end.
 */
import type { Queryable } from "../db.ts";

/** The next value for `prefix`, starting at 1. */
export async function nextValue(q: Queryable, prefix: string): Promise<number> {
  const { rows } = await q.query<{ value: string }>(
    `INSERT INTO document_sequences (prefix, value) VALUES ($1, 1)
     ON CONFLICT (prefix) DO UPDATE SET value = document_sequences.value + 1
     RETURNING value`,
    [prefix],
  );
  const value = rows[0]?.value;
  if (value === undefined) throw new Error(`document sequence ${prefix} returned no value`);
  return Number(value);
}

/** The last value given out for `prefix` (0 when none). */
export async function currentValue(q: Queryable, prefix: string): Promise<number> {
  const { rows } = await q.query<{ value: string }>(
    "SELECT value FROM document_sequences WHERE prefix = $1",
    [prefix],
  );
  return rows[0] ? Number(rows[0].value) : 0;
}
