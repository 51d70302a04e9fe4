/**
 * `order-desk migrate`: applies the database migrations this version needs, ours and the job queue's, then
 * exits. Order Desk applies them itself at start; this is for operators who migrate before they roll out (and
 * see the result), e.g. as a release step before the replicas are replaced.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "pino";
import { loadOperationsTarget } from "../config/operations.ts";
import { ConfigError } from "../config.ts";
import { createJobs } from "../jobs/pgboss/adapter.ts";
import { describeTarget, openStore, PGLITE_SUBDIR, type Store } from "../store/db.ts";
import { loadMigrations, runMigrations } from "../store/migrate.ts";
import { VERSION } from "../version.ts";
import { type CommandIo, parseCommandArgs } from "./args.ts";

export const MIGRATE_USAGE = `Usage: order-desk migrate

Applies the database migrations this version of Order Desk needs (its tables and the job queue's), then exits.
Optional: \`order-desk start\` applies them too. Run it before rolling out a new version to see them applied
(docs/deploy.md, "Upgrading"). The database is DATABASE_URL, else the embedded store in ORDER_DESK_DATA_DIR
(default ./data), which must not be in use by a running Order Desk.
Exit codes: 0 the database is up to date, 1 it could not be migrated, 2 bad usage.
`;

const SPEC = { name: "migrate", usage: MIGRATE_USAGE, options: {} };

export interface MigrateDeps {
  /** A store of the caller's (tests: a schema of their own); not closed. */
  store?: Store;
  logger?: Logger;
}

export async function runMigrate(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CommandIo,
  deps: MigrateDeps = {},
): Promise<number> {
  const args = parseCommandArgs(SPEC, argv, io);
  if (!args.ok) return args.exitCode;
  let store = deps.store;
  let where = "the given store";
  // A new embedded store is unpacked from the build's prebuilt data directory, migrated already.
  let created = false;
  try {
    if (!store) {
      const target = loadOperationsTarget(env);
      where = target.databaseUrl
        ? `PostgreSQL at ${describeTarget(target.databaseUrl)}`
        : `the embedded store in ${target.dataDir}`;
      created = target.databaseUrl === null && !existsSync(join(resolve(target.dataDir), PGLITE_SUBDIR));
      store = await openStore({
        ...(target.databaseUrl ? { databaseUrl: target.databaseUrl } : { dataDir: target.dataDir }),
        migrate: false,
        ...(deps.logger ? { logger: deps.logger } : {}),
      });
    }
    const applied = await runMigrations(store, deps.logger ? { logger: deps.logger } : {});
    // pg-boss installs or upgrades its own schema when it starts; nothing runs: no workers, no recovery.
    const jobs = createJobs({ store, recoverInterruptedOnStart: false, owners: false });
    await jobs.start();
    await jobs.stop({ graceMs: 0 });
    const all = loadMigrations();
    io.stdout.write(
      `${
        applied.length === 0
          ? created
            ? `Created a new store with all ${all.length} migrations applied`
            : `Nothing to apply: all ${all.length} migrations were applied already`
          : `Applied ${applied.length} migration${applied.length === 1 ? "" : "s"}: ${applied.join(", ")}`
      } (${where}; latest ${all.at(-1)?.name ?? "none"}); the job queue's schema is up to date. ` +
        `Ready for Order Desk ${VERSION}.\n`,
    );
    return 0;
  } catch (error) {
    const message = error instanceof ConfigError ? error.problems.join("; ") : (error as Error).message;
    io.stderr.write(`order-desk migrate: ${where === "the given store" ? "" : `${where}: `}${message}\n`);
    return error instanceof ConfigError ? 2 : 1;
  } finally {
    if (!deps.store) await store?.close().catch(() => {});
  }
}
