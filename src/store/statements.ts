/**
 * Parameterised queries are sent as named (prepared) statements: PostgreSQL then parses and plans each text
 * once per connection instead of on every call. Measured on the hot paths (docs/benchmarks.md): pg-boss's job
 * INSERT 1.17 → 0.35 ms and our order INSERT 0.48 → 0.32 ms on PGlite, 0.90 → 0.55 and 0.64 → 0.43 ms on
 * PostgreSQL.
 *
 * - Only texts with parameters are named: they are single statements by protocol, and ours and pg-boss's are a
 *   fixed set. Past `MAX_NAMED` distinct texts the rest go unnamed, so a caller building texts dynamically
 *   cannot grow the server's statement cache without bound.
 * - A prepared `SELECT *` fails with `0A000` ("cached plan must not change result type") once a migration run
 *   by a newer replica adds a column. The text is then given a fresh name, and a query outside a transaction
 *   is run once more (the error comes before execution, so nothing ran twice); inside a transaction the error
 *   ends it and the caller's retry gets the fresh name.
 */
import type pg from "pg";

const MAX_NAMED = 1_000;
const STALE_PLAN = "0A000";

export class StatementNames {
  private readonly names = new Map<string, string>();
  private next = 0;

  /** What to hand node-postgres for this query. */
  config(text: string, values: unknown[] | undefined): pg.QueryConfig {
    if (!values || values.length === 0) return { text };
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_NAMED) {
      name = `od_${(this.next++).toString(36)}`;
      this.names.set(text, name);
    }
    return name === undefined ? { text, values } : { name, text, values };
  }

  /** True when `error` is a stale prepared plan of a named query (its text now gets a fresh name). */
  stale(config: pg.QueryConfig, error: unknown): boolean {
    if (config.name === undefined || (error as { code?: unknown } | null)?.code !== STALE_PLAN) return false;
    this.names.delete(config.text);
    return true;
  }
}

/** Runs a query as a named statement, re-preparing once after a stale plan (outside a transaction only). */
export async function runNamed<R extends pg.QueryResultRow>(
  names: StatementNames,
  run: (config: pg.QueryConfig) => Promise<pg.QueryResult<R>>,
  text: string,
  values: unknown[] | undefined,
  options: { retry: boolean },
): Promise<pg.QueryResult<R>> {
  const config = names.config(text, values);
  try {
    return await run(config);
  } catch (error) {
    if (!names.stale(config, error) || !options.retry) throw error;
    return run(names.config(text, values));
  }
}
