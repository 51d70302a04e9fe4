/**
 * Builds empty embedded stores ahead of time:
 * - `buildDataTemplate(dir)`: the prebuilt data directory `npm run build` ships (data-template.ts), from which a
 *   first start unpacks its store instead of running initdb;
 * - `buildPgliteTemplate()`: a migrated store as a tarball for `openStore({ pgliteTemplate })` (the tests' stores,
 *   in memory).
 */
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { constants, gzip } from "node:zlib";
import { type Logger, pino } from "pino";
import { createPglite, pgliteStore, type Store } from "../db.ts";
import { runMigrations } from "../migrate.ts";
import {
  currentTemplateIdentity,
  type DataTemplateManifest,
  PGLITE_SUBDIR,
  TEMPLATE_ARCHIVE,
  TEMPLATE_MANIFEST,
} from "./data-template.ts";
import { packTar } from "./tar.ts";

/** Dropped from the prebuilt store (see `buildDataTemplate`). */
const TEMPLATE_DATABASES = ["template0", "template1"] as const;

export interface BuildDataTemplateOptions {
  /** What else a started app keeps in its store, run after the migrations (the jobs' schema and queues). */
  prepare?: (store: Store) => Promise<void>;
  logger?: Logger;
}

/**
 * Creates an empty store (initdb, migrations, `prepare`) in a scratch directory beside `dir`, shuts it down
 * cleanly and writes it to `dir` as the archive and its manifest; the manifest is written last, so a template
 * whose build was interrupted is never used.
 *
 * Shut down, not dumped while running (PGlite's `dumpDataDir`): a dump's control file says the server was
 * running, so every first start went through crash recovery (replaying the WAL from the last checkpoint,
 * resetting unlogged relations, which lists every database directory) before it could open the store; a
 * cleanly shut-down directory opens as a restart does (measured on its own: ≈ 315 against ≈ 265 ms of CPU to
 * open).
 */
export async function buildDataTemplate(
  dir: string,
  options: BuildDataTemplateOptions = {},
): Promise<DataTemplateManifest> {
  const logger = options.logger ?? pino({ level: "silent" });
  mkdirSync(dir, { recursive: true });
  const scratch = mkdtempSync(join(dir, ".building-"));
  let archive: Buffer;
  try {
    const pgDir = join(scratch, PGLITE_SUBDIR);
    // Segments that a checkpoint no longer needs are removed instead of kept for reuse: the archive then holds
    // one WAL segment with one checkpoint in it, not initdb's whole history (4.5 MB compressed → 3 MB).
    const pglite = await createPglite(pgDir, { conf: ["wal_recycle = off"] });
    const store = pgliteStore(pglite, {
      dataDir: null,
      lock: null,
      logger,
      label: pgDir,
      guardTransactions: false,
    });
    try {
      await runMigrations(store, { logger });
      await options.prepare?.(store);
      // initdb's template databases are two thirds of a data directory's ≈ 1,000 files, and creating files is
      // what a first start's unpacking spends its time on (≈ 0.2 ms each on a busy disk). They serve only
      // CREATE DATABASE, which the embedded store never runs: it is one database, the app's ("postgres").
      for (const name of TEMPLATE_DATABASES) {
        await pglite.exec(`ALTER DATABASE ${name} IS_TEMPLATE false`);
        await pglite.exec(`DROP DATABASE ${name}`);
      }
      await pglite.exec("CHECKPOINT");
      await pglite.query("SELECT pg_switch_wal()");
      await pglite.exec("CHECKPOINT");
    } finally {
      // Closing PGlite shuts PostgreSQL down: a shutdown checkpoint, and the control file says so.
      await store.close();
    }
    removeMapForks(pgDir);
    archive = await promisify(gzip)(packTar(pgDir), { level: constants.Z_BEST_COMPRESSION });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const manifest: DataTemplateManifest = { ...currentTemplateIdentity(), builtAt: new Date().toISOString() };
  writeAtomically(join(dir, TEMPLATE_ARCHIVE), archive);
  writeAtomically(join(dir, TEMPLATE_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Removes the relations' free space maps and visibility maps (`<relfilenode>_fsm`, `_vm`): 86 of the 525 files a
 * first start created, and creating files is what its unpacking spends its time on. PostgreSQL makes a relation's
 * map again when it first needs it (a map that is not there reads as empty: no free space recorded, no page known
 * all-visible, which VACUUM records again), as it does for every new table.
 */
function removeMapForks(pgDir: string): void {
  for (const entry of readdirSync(pgDir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /^\d+_(fsm|vm)$/.test(entry.name)) rmSync(join(entry.parentPath, entry.name));
  }
}

function writeAtomically(path: string, data: string | Uint8Array): void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, data);
  renameSync(partial, path);
}

/**
 * A migrated, empty embedded store as a tarball, for `openStore({ pgliteTemplate })`: loading it takes a
 * fraction of a second where creating a store from scratch (initdb) takes seconds. Tests cache it on disk.
 */
export async function buildPgliteTemplate(
  options: Pick<BuildDataTemplateOptions, "prepare" | "logger"> = {},
): Promise<Blob> {
  const logger = options.logger ?? pino({ level: "silent" });
  const pglite = await createPglite("memory://");
  const store = pgliteStore(pglite, {
    dataDir: null,
    lock: null,
    logger,
    label: "memory://",
    guardTransactions: false,
  });
  try {
    await runMigrations(store, { logger });
    await options.prepare?.(store);
    return await pglite.dumpDataDir("none");
  } finally {
    await store.close();
  }
}
