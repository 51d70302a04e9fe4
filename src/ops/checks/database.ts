/**
 * The database: can it be opened, and has every migration this build ships been applied (unchanged).
 * The doctor opens the store without migrating: it reports, it does not repair. Order Desk applies
 * pending migrations itself when it starts.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";
import type { Logger } from "pino";
import { describeTarget, openStore, PGLITE_SUBDIR, type Queryable, type Store } from "../../store/db.ts";
import { StoreLockedError } from "../../store/errors.ts";
import { loadMigrations, type Migration } from "../../store/migrate.ts";
import { type CheckOutcome, describeError, fail, note, ok, warn } from "../check.ts";

export interface OpenForCheck {
  outcome: CheckOutcome | null;
  store: Store | null;
}

/**
 * Opens the configured store for reading. Returns an outcome instead of a store when it cannot be opened:
 * `fail` when it is unreachable, `note` when the embedded store does not exist yet (a first start creates it),
 * `warn` when it is held by a running Order Desk (that is how a healthy single instance looks; ask its `/readyz`).
 */
export async function openStoreForCheck(options: {
  databaseUrl?: string;
  dataDir: string;
  timeoutMs: number;
  logger?: Logger;
}): Promise<OpenForCheck> {
  const { databaseUrl, dataDir, timeoutMs } = options;
  if (databaseUrl) {
    // openStore's pool has no connect timeout; a short-lived client finds an unreachable server quickly.
    const client = new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
    });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("SELECT 1");
    } catch (error) {
      return {
        outcome: fail(
          `cannot connect to PostgreSQL at ${describeTarget(databaseUrl)}: ${describeError(error)}. Check DATABASE_URL.`,
        ),
        store: null,
      };
    } finally {
      await client.end().catch(() => {});
    }
  } else if (!existsSync(join(resolve(dataDir), PGLITE_SUBDIR))) {
    return {
      outcome: note(
        `no embedded store in ${resolve(dataDir)} yet: Order Desk creates it on its first start (or run ` +
          "`order-desk migrate`). If one should be there, check ORDER_DESK_DATA_DIR (in the container: the /data volume).",
      ),
      store: null,
    };
  }
  try {
    const store = await openStore({
      ...(databaseUrl ? { databaseUrl } : {}),
      dataDir,
      migrate: false,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return { outcome: null, store };
  } catch (error) {
    if (error instanceof StoreLockedError) {
      return {
        outcome: warn(
          `the embedded store in ${error.dataDir} is in use by Order Desk (process ${error.holderPid} on ` +
            `${error.holderHost}), so it was not checked: ask that instance's /readyz, or stop it and run the doctor again`,
        ),
        store: null,
      };
    }
    return { outcome: fail(`cannot open the store: ${describeError(error)}`), store: null };
  }
}

/** Compares `schema_migrations` with the migration files of this build. */
export async function checkMigrations(
  q: Queryable,
  migrations: readonly Migration[] = loadMigrations(),
): Promise<CheckOutcome> {
  const { rows: present } = await q.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  if (!present[0]?.present) {
    return note(
      `an empty database: Order Desk applies its ${migrations.length} migrations on its first start (or run ` +
        "`order-desk migrate`). If it should hold Order Desk's data, check DATABASE_URL / ORDER_DESK_DATA_DIR.",
    );
  }
  const { rows } = await q.query<{ name: string; checksum: string }>(
    "SELECT name, checksum FROM schema_migrations ORDER BY name",
  );
  const applied = new Map(rows.map((r) => [r.name, r.checksum]));
  const missing = migrations.filter((m) => !applied.has(m.name)).map((m) => m.name);
  const changed = migrations
    .filter((m) => applied.has(m.name) && applied.get(m.name) !== m.checksum)
    .map((m) => m.name);
  const known = new Set(migrations.map((m) => m.name));
  const unknown = rows.map((r) => r.name).filter((name) => !known.has(name));

  if (changed.length > 0) {
    return fail(
      `migration ${changed.join(", ")} differs from what was applied: migrations are never edited once landed; ` +
        "restore the original file and add a new migration",
    );
  }
  if (missing.length > 0) {
    return note(
      `${missing.length} of ${migrations.length} migrations to apply (${missing.join(", ")}): this version applies ` +
        "them when it starts (or run `order-desk migrate`)",
    );
  }
  if (unknown.length > 0) {
    return warn(
      `all ${migrations.length} migrations applied, plus ${unknown.join(", ")} from a newer build: this build is older than the database`,
    );
  }
  return ok(
    `${migrations.length} of ${migrations.length} migrations applied (latest ${migrations.at(-1)?.name ?? "none"})`,
  );
}
