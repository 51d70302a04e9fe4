/**
 * A batch of new orders whose document numbers we generate, stored with their placement jobs in one statement:
 * it takes the numbers from the gapless counters (`sequences.ts`), writes each into its order (the column and
 * the request), inserts the orders and runs the caller's job INSERT (`Jobs.sendManyWithin`). One round trip
 * where a transaction needs five: on PostgreSQL each answer waits for the event loop to finish the Slack
 * requests it is parsing, and the round trips, not the server, were what limited the submit path
 * (docs/benchmarks.md).
 *
 * When one of the orders is not inserted (its idempotency key, or in its profile its document number, is
 * already taken) the statement fails on purpose, through `expect_rows` (migration 003), and nothing it wrote
 * stays: no number is used up. The caller then stores those orders one at a time, where each case has its
 * answer.
 */

import type { NewOrder, Order } from "../../orders/model/order.ts";
import type { Queryable, SqlQuery } from "../db.ts";
import { INSERT_COLUMNS, INSERT_DEFAULTS, insertRow, JSONB_COLUMNS, mapOrder } from "./orders.ts";

/**
 * A document number with its counter left open: the literal text around each counter placeholder (`parts`,
 * one more than `pads`) and each placeholder's width. Filled as `parts[0] + pad(seq, pads[0]) + parts[1] …`,
 * where `pad` is `String(seq).padStart(width, "0")` (never truncated).
 */
export interface DocumentNumberTemplate {
  /** The counter's key: numbers are gapless per key. */
  counter: string;
  parts: string[];
  pads: number[];
}

export interface NumberedNewOrder extends Omit<NewOrder, "externalDocumentNumber"> {
  /** Written into the order's `externalDocumentNumber` and its request's. */
  documentNumber: DocumentNumberTemplate;
}

/** Raised by `expect_rows` (migration 003). */
const ROWS_NOT_WRITTEN = "OD001";

const ORDER_COLUMNS = INSERT_COLUMNS.filter((c) => c !== "external_document_number");

/** Built once per job INSERT text (pg-boss's is the same for every batch of a queue). */
const statements = new Map<string, string>();

function statementFor(jobs: SqlQuery): string {
  const key = `${jobs.values.length}:${jobs.text}`;
  let text = statements.get(key);
  if (text === undefined) {
    text = statement(jobs.text, jobs.values.length);
    if (statements.size < 100) statements.set(key, text);
  }
  return text;
}

/** `$1`…`$jobsValues` are the job INSERT's; then the orders as JSON and how many there are. */
function statement(jobsText: string, jobsValues: number): string {
  const orders = `$${jobsValues + 1}`;
  const count = `$${jobsValues + 2}`;
  const pad = "lpad(x.seq::text, greatest(x.pads[p.i], length(x.seq::text)), '0')";
  return `WITH jobs AS (${jobsText}),
  input AS (
    SELECT * FROM jsonb_to_recordset(${orders}::jsonb) AS o(n int, counter text, parts text[], pads int[],
      ${ORDER_COLUMNS.map((c) => `${c} ${JSONB_COLUMNS.has(c) ? "jsonb" : "text"}`).join(", ")})
  ),
  wanted AS (SELECT counter, count(*) AS k FROM input GROUP BY counter),
  taken AS (
    INSERT INTO document_sequences (prefix, value)
    SELECT counter, k FROM wanted ORDER BY counter
    ON CONFLICT (prefix) DO UPDATE SET value = document_sequences.value + EXCLUDED.value
    RETURNING prefix, value
  ),
  numbered AS (
    SELECT i.*, t.value - w.k + row_number() OVER (PARTITION BY i.counter ORDER BY i.n) AS seq
    FROM input i JOIN wanted w ON w.counter = i.counter JOIN taken t ON t.prefix = i.counter
  ),
  rendered AS (
    SELECT x.*, (
      SELECT string_agg(p.part || CASE WHEN p.i <= cardinality(x.pads) THEN ${pad} ELSE '' END, '' ORDER BY p.i)
      FROM unnest(x.parts) WITH ORDINALITY AS p(part, i)
    ) AS edn
    FROM numbered x
  ),
  inserted AS (
    INSERT INTO orders (${INSERT_COLUMNS.join(", ")})
    SELECT ${INSERT_COLUMNS.map((c) =>
      c === "external_document_number"
        ? "edn"
        : c === "request"
          ? "jsonb_set(request, '{externalDocumentNumber}', to_jsonb(edn))"
          : c,
    ).join(", ")}
    FROM rendered ORDER BY n
    ON CONFLICT DO NOTHING
    RETURNING id, external_document_number, status_at, created_at, updated_at
  )
  -- The check is the outer side of the join, so it runs even when nothing was inserted.
  SELECT i.* FROM (SELECT expect_rows(count(*), ${count}) FROM inserted) AS checked LEFT JOIN inserted i ON true`;
}

/**
 * Stores `orders` (numbered in the order given, per counter) and runs `jobs` in the same statement; `null` when
 * one of them could not be inserted, in which case nothing was written. Call it outside a transaction: a
 * refused statement would end one.
 */
export async function insertNumberedOrders(
  q: Queryable,
  orders: readonly NumberedNewOrder[],
  jobs: SqlQuery,
): Promise<Order[] | null> {
  if (orders.length === 0) return [];
  const rows = orders.map((order) => insertRow({ ...order, externalDocumentNumber: "" }));
  // Each row's blank `external_document_number` goes along unread: the statement's record has no such column.
  const input = orders.map((order, n) => {
    const { counter, parts, pads } = order.documentNumber;
    return { n, counter, parts, pads, ...rows[n] };
  });
  let stored: Array<Record<string, unknown>>;
  try {
    ({ rows: stored } = await q.query(statementFor(jobs), [
      ...jobs.values,
      JSON.stringify(input),
      orders.length,
    ]));
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === ROWS_NOT_WRITTEN) return null;
    throw error;
  }
  const byId = new Map(stored.map((row) => [row.id as string, row]));
  return rows.map((row) => {
    const fromDb = byId.get(row.id as string);
    if (!fromDb) throw new Error(`order ${String(row.id)} was counted as stored but not returned`);
    const edn = fromDb.external_document_number as string;
    // The order as `RETURNING *` would give it: what was inserted, the defaults, what the database set.
    return mapOrder({
      ...row,
      ...INSERT_DEFAULTS,
      ...fromDb,
      request: { ...(row.request as object), externalDocumentNumber: edn },
    });
  });
}
