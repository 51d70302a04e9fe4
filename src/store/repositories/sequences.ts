/**
 * Gapless per-prefix counters for document numbers (`externalDocumentNumber`). Unlike a PostgreSQL sequence, a
 * value taken in a transaction that rolls back is given out again, so numbers have no holes; the row lock
 * serialises concurrent callers of the same prefix until their transactions end.
 */
import type { Queryable } from "../db.ts";

/**
 * Takes `count` values of each prefix in one statement (a new prefix starts at 1); answers, per prefix, the
 * first value taken (the rest follow it). Prefixes are locked in sorted order, so two batches sharing prefixes
 * cannot deadlock.
 */
export async function nextValues(
  q: Queryable,
  counts: ReadonlyMap<string, number>,
): Promise<Map<string, number>> {
  const prefixes = [...counts.keys()].sort();
  const { rows } = await q.query<{ prefix: string; value: string }>(
    `INSERT INTO document_sequences (prefix, value)
     SELECT prefix, n FROM unnest($1::text[], $2::bigint[]) AS s(prefix, n) ORDER BY prefix
     ON CONFLICT (prefix) DO UPDATE SET value = document_sequences.value + EXCLUDED.value
     RETURNING prefix, value`,
    [prefixes, prefixes.map((p) => counts.get(p))],
  );
  const first = new Map<string, number>();
  for (const row of rows) first.set(row.prefix, Number(row.value) - (counts.get(row.prefix) ?? 0) + 1);
  for (const prefix of prefixes) {
    if (!first.has(prefix)) throw new Error(`document sequence ${prefix} returned no value`);
  }
  return first;
}

/** The last value given out for `prefix` (0 when none). */
export async function currentValue(q: Queryable, prefix: string): Promise<number> {
  const { rows } = await q.query<{ value: string }>(
    "SELECT value FROM document_sequences WHERE prefix = $1",
    [prefix],
  );
  return rows[0] ? Number(rows[0].value) : 0;
}
