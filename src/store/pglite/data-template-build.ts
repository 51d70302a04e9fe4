/**
 * Builds empty embedded stores ahead of time:
 * - `buildDataTemplate(dir)`: the prebuilt data directory `npm run build` ships (data-template.ts), from which a
 *   first start unpacks its store instead of running initdb;
 * - `buildPgliteTemplate()`: a migrated store as a tarball for `openStore({ pgliteTemplate })` (the tests' stores,
 *   in memory).
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { constants, gzip } from "node:zlib";
import { type Logger, pino } from "pino";
import { createPglite, pgliteStore, type Store } from "../db.ts";
import { runMigrations } from "../migrate.ts";
import {
  currentTemplateIdentity,
  type DataTemplateManifest,
  TEMPLATE_ARCHIVE,
  TEMPLATE_MANIFEST,
} from "./data-template.ts";

export interface BuildDataTemplateOptions {
  /** What else a started app keeps in its store, run after the migrations (the jobs' schema and queues). */
  prepare?: (store: Store) => Promise<void>;
  logger?: Logger;
}

/**
 * Creates an empty store in memory (initdb, migrations, `prepare`) and writes it to `dir` as the archive and its
 * manifest; the manifest is written last, so a template whose build was interrupted is never used.
 */
export async function buildDataTemplate(
  dir: string,
  options: BuildDataTemplateOptions = {},
): Promise<DataTemplateManifest> {
  const logger = options.logger ?? pino({ level: "silent" });
  // Segments that a checkpoint no longer needs are removed instead of kept for reuse: the archive then holds
  // one WAL segment with one checkpoint in it, not initdb's whole history (4.5 MB compressed → 3 MB).
  const pglite = await createPglite("memory://", { conf: ["wal_recycle = off"] });
  const store = pgliteStore(pglite, {
    dataDir: null,
    lock: null,
    logger,
    label: "memory://",
    guardTransactions: false,
  });
  let tar: Blob;
  try {
    await runMigrations(store, { logger });
    await options.prepare?.(store);
    await pglite.exec("CHECKPOINT");
    await pglite.query("SELECT pg_switch_wal()");
    await pglite.exec("CHECKPOINT");
    tar = await pglite.dumpDataDir("none");
  } finally {
    await store.close();
  }
  const archive = await promisify(gzip)(Buffer.from(await tar.arrayBuffer()), {
    level: constants.Z_BEST_COMPRESSION,
  });
  const manifest: DataTemplateManifest = { ...currentTemplateIdentity(), builtAt: new Date().toISOString() };
  mkdirSync(dir, { recursive: true });
  writeAtomically(join(dir, TEMPLATE_ARCHIVE), archive);
  writeAtomically(join(dir, TEMPLATE_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
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
export async function buildPgliteTemplate(options: { logger?: Logger } = {}): Promise<Blob> {
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
    return await pglite.dumpDataDir("none");
  } finally {
    await store.close();
  }
}
