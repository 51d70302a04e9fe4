/**
 * Schema migrations: the ordered `.sql` files in `./migrations` (`001_initial.sql`, `002_…`), each applied in
 * its own transaction and recorded in `schema_migrations` with a checksum.
 *
 * - Several replicas starting at once are safe: every migration transaction first takes a transaction-level
 *   advisory lock, then re-reads what is applied, so exactly one replica applies each file.
 * - Migrations are never edited once landed: a recorded checksum that differs from the file is an error.
 * - A recorded migration this build does not know (a newer build ran first) is logged, not fatal, so an older
 *   replica keeps running during a rolling deploy; migrations are therefore additive.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Logger, pino } from "pino";
import type { Queryable, Transaction } from "./db.ts";
import { MigrationChecksumError, MigrationFailedError } from "./errors.ts";

export const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationTarget extends Queryable {
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
}

export interface MigrateOptions {
  dir?: string;
  logger?: Logger;
}

/**
 * Advisory lock key of start-up's schema changes: one per schema, so test schemas on a shared server do not wait
 * for each other. The migrations take it per file; the job queue's install takes it too (jobs.ts).
 */
export const STARTUP_LOCK_KEY_SQL = "hashtext('order-desk:migrations:' || current_schema())";
const LOCK_SQL = `SELECT pg_advisory_xact_lock(${STARTUP_LOCK_KEY_SQL})`;

const CREATE_TABLE_SQL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d+_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      // Normalised line endings: a checkout with CRLF must not look like an edited migration.
      const sql = readFileSync(join(dir, file), "utf8").replace(/\r\n/g, "\n");
      return { name: file, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/** Applies every pending migration; returns the names applied by this call. */
export async function runMigrations(
  target: MigrationTarget,
  options: MigrateOptions = {},
): Promise<string[]> {
  const logger = options.logger ?? pino({ level: "silent" });
  const migrations = loadMigrations(options.dir);
  const applied: string[] = [];

  // The usual start: everything is applied already. One read says so, where the locked check of each file
  // took a transaction of five statements apiece.
  const recorded = await readRecorded(target);
  if (recorded && migrations.every((m) => recorded.has(m.name))) {
    for (const m of migrations) {
      if (recorded.get(m.name) !== m.checksum) throw new MigrationChecksumError(m.name);
    }
    warnUnknown([...recorded.keys()], migrations, logger);
    return applied;
  }

  for (const migration of migrations) {
    const didApply = await target.transaction(async (tx) => {
      await tx.query(LOCK_SQL);
      await tx.query(CREATE_TABLE_SQL);
      const { rows } = await tx.query<{ checksum: string }>(
        "SELECT checksum FROM schema_migrations WHERE name = $1",
        [migration.name],
      );
      const recorded = rows[0];
      if (recorded) {
        if (recorded.checksum !== migration.checksum) throw new MigrationChecksumError(migration.name);
        return false;
      }
      try {
        // No parameters: sent as a simple query, so a file may hold several statements.
        await tx.query(migration.sql);
      } catch (error) {
        throw new MigrationFailedError(migration.name, error);
      }
      await tx.query("INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)", [
        migration.name,
        migration.checksum,
      ]);
      return true;
    });
    if (didApply) {
      applied.push(migration.name);
      logger.info({ migration: migration.name }, "migration applied");
    }
  }

  const { rows } = await target.query<{ name: string }>("SELECT name FROM schema_migrations ORDER BY name");
  warnUnknown(
    rows.map((r) => r.name),
    migrations,
    logger,
  );
  return applied;
}

/** What `schema_migrations` records, by name; `null` before the first migration created it. */
async function readRecorded(target: MigrationTarget): Promise<Map<string, string> | null> {
  try {
    const { rows } = await target.query<{ name: string; checksum: string }>(
      "SELECT name, checksum FROM schema_migrations",
    );
    return new Map(rows.map((r) => [r.name, r.checksum]));
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return null; // undefined_table
    throw error;
  }
}

function warnUnknown(recorded: string[], migrations: Migration[], logger: Logger): void {
  const known = new Set(migrations.map((m) => m.name));
  const unknown = recorded.filter((name) => !known.has(name)).sort();
  if (unknown.length > 0) {
    logger.warn({ unknown }, "the database has migrations this build does not know; a newer build ran here");
  }
}
