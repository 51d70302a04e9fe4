/**
 * Empties a test database back to a recorded clean state without building it again: the tables' rows deleted
 * (`TRUNCATE` of the ones holding any), the rows the clean state held put back (the migrations' record,
 * pg-boss's version and queues), every sequence set back. Building again (dropping the schemas, running every
 * migration, installing pg-boss) costs tenths of a second per store on an idle machine and several times that
 * on a busy one, and most test files open many stores.
 *
 * Only when nothing but rows changed: the catalog of the schemas (tables, columns, defaults, constraints,
 * indexes, functions, types, triggers, the schemas themselves) is compared with the clean state's first, and a
 * test that changed it (a migration test, a pg-boss 10 schema for the carry-over) gets `false`: the caller
 * builds the database again.
 */

/** What runs SQL here: a PGlite instance or a node-postgres client. */
export interface Sql {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** The rows of a statement whose columns this file wrote. */
async function rowsOf<R>(sql: Sql, text: string, params?: unknown[]): Promise<R[]> {
  return (await sql.query(text, params)).rows as R[];
}

/** Which schemas make up the database: a predicate on `pg_namespace.nspname`, as SQL with `$1`. */
export interface Scope {
  /** e.g. `nspname = ANY($1)`. */
  where: string;
  param: unknown;
}

export interface CleanState {
  fingerprint: string;
  seeds: { table: string; columns: string[]; rows: unknown }[];
  sequences: { name: string; lastValue: string; isCalled: boolean }[];
}

const IN_SCOPE = (alias: string, scope: Scope) =>
  `${alias} IN (SELECT oid FROM pg_namespace WHERE ${scope.where})`;

function fingerprintSql(scope: Scope): string {
  const ns = (column: string) => IN_SCOPE(column, scope);
  return `SELECT md5(coalesce(string_agg(x, E'\\n' ORDER BY x), '')) AS f FROM (
    SELECT 'n ' || nspname AS x FROM pg_namespace WHERE ${scope.where}
    UNION ALL SELECT 'c ' || c.oid::regclass::text || ' ' || c.relkind::text FROM pg_class c WHERE ${ns("c.relnamespace")}
    UNION ALL SELECT 'a ' || c.oid::regclass::text || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
        || ' ' || a.attnotnull::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE ${ns("c.relnamespace")} AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL SELECT 'k ' || conrelid::regclass::text || '.' || conname || ' ' || pg_get_constraintdef(oid)
      FROM pg_constraint WHERE ${ns("connamespace")}
    UNION ALL SELECT 'i ' || indexrelid::regclass::text || ' ' || pg_get_indexdef(indexrelid)
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE ${ns("c.relnamespace")}
    UNION ALL SELECT 'p ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc)
      FROM pg_proc p WHERE ${ns("p.pronamespace")}
    UNION ALL SELECT 't ' || t.oid::regtype::text FROM pg_type t WHERE ${ns("t.typnamespace")}
    UNION ALL SELECT 'g ' || tg.tgrelid::regclass::text || '.' || tg.tgname || ' ' || pg_get_triggerdef(tg.oid)
      FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid WHERE ${ns("c.relnamespace")} AND NOT tg.tgisinternal
  ) catalog`;
}

/** The ordinary and partitioned tables in scope (partitions are emptied through their parent). */
function tablesSql(scope: Scope): string {
  return `SELECT c.oid::regclass::text AS name FROM pg_class c
    WHERE ${IN_SCOPE("c.relnamespace", scope)} AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    ORDER BY 1`;
}

async function tables(sql: Sql, scope: Scope): Promise<string[]> {
  return (await rowsOf<{ name: string }>(sql, tablesSql(scope), [scope.param])).map((r) => r.name);
}

/** The tables among `names` that hold a row, in one statement. */
async function nonEmpty(sql: Sql, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const probe = names
    .map((name, i) => `SELECT ${i} AS i WHERE EXISTS (SELECT 1 FROM ${name})`)
    .join(" UNION ALL ");
  const rows = await rowsOf<{ i: number }>(sql, probe);
  return rows.map((r) => names[r.i] as string);
}

async function fingerprint(sql: Sql, scope: Scope): Promise<string> {
  const rows = await rowsOf<{ f: string }>(sql, fingerprintSql(scope), [scope.param]);
  return rows[0]?.f ?? "";
}

/** Records the database as it is now as the state to empty it back to. */
export async function captureCleanState(sql: Sql, scope: Scope): Promise<CleanState> {
  const seeds: CleanState["seeds"] = [];
  for (const table of await nonEmpty(sql, await tables(sql, scope))) {
    // Generated columns are computed again on insert; they cannot be given.
    const cols = await rowsOf<{ name: string }>(
      sql,
      `SELECT quote_ident(attname) AS name FROM pg_attribute
       WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
       ORDER BY attnum`,
      [table],
    );
    const columns = cols.map((c) => c.name);
    // Each row as its composite literal (the row type's text form), which reads back exactly, whatever the types.
    const rows = await rowsOf<{ rows: unknown }>(
      sql,
      `SELECT coalesce(json_agg(t::text), '[]'::json) AS rows FROM ${table} t`,
    );
    seeds.push({ table, columns, rows: rows[0]?.rows ?? [] });
  }
  const seqs = await rowsOf<{ name: string }>(
    sql,
    `SELECT c.oid::regclass::text AS name FROM pg_class c
     WHERE ${IN_SCOPE("c.relnamespace", scope)} AND c.relkind = 'S' ORDER BY 1`,
    [scope.param],
  );
  const sequences: CleanState["sequences"] = [];
  for (const { name } of seqs) {
    const rows = await rowsOf<{ last_value: string; is_called: boolean }>(
      sql,
      `SELECT last_value::text, is_called FROM ${name}`,
    );
    sequences.push({ name, lastValue: rows[0]?.last_value ?? "1", isCalled: rows[0]?.is_called ?? false });
  }
  return { fingerprint: await fingerprint(sql, scope), seeds, sequences };
}

/**
 * Empties the database back to `clean` when only rows changed since; `false` (nothing done) when the catalog
 * differs. Runs in one transaction.
 */
export async function resetToCleanState(sql: Sql, scope: Scope, clean: CleanState): Promise<boolean> {
  if ((await fingerprint(sql, scope)) !== clean.fingerprint) return false;
  await sql.query("BEGIN");
  try {
    const dirty = await nonEmpty(sql, await tables(sql, scope));
    const seeded = clean.seeds.map((s) => s.table);
    const truncate = [...new Set([...dirty, ...seeded])];
    if (truncate.length > 0) await sql.query(`TRUNCATE ${truncate.join(", ")} CASCADE`);
    for (const seed of clean.seeds) {
      const picked = seed.columns.map((c) => `(x.r).${c}`).join(", ");
      await sql.query(
        `INSERT INTO ${seed.table} (${seed.columns.join(", ")}) OVERRIDING SYSTEM VALUE
         SELECT ${picked} FROM (SELECT s::${seed.table} AS r FROM json_array_elements_text($1::json) s) x`,
        [JSON.stringify(seed.rows)],
      );
    }
    for (const s of clean.sequences) {
      await sql.query("SELECT setval($1::regclass, $2::bigint, $3)", [s.name, s.lastValue, s.isCalled]);
    }
    await sql.query("COMMIT");
    return true;
  } catch (error) {
    await sql.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
