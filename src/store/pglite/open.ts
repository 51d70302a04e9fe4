/**
 * Opening the embedded store: the data directory's lock, a new store unpacked from the prebuilt data directory
 * (or created by initdb), the PGlite instance and the node-postgres pool over it. `store/db.ts` wraps what this
 * returns into a `Store`, as it does PostgreSQL's pool.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import type { Logger } from "pino";
import type { OpenStoreOptions } from "../db.ts";
import { BUILT_DATA_TEMPLATE_DIR, needsCreating, PGLITE_SUBDIR } from "./data-template.ts";
import { compilePgliteWasm, createFromTemplate, createPglite } from "./instance.ts";
import { acquireDirLock, type DirLock } from "./lock.ts";
import { createPglitePool } from "./node-postgres.ts";

/** What `store/db.ts` makes a `Store` of. */
export interface PgliteBackend {
  pool: pg.Pool;
  /** The store's directory (`null` in memory). */
  dataDir: string | null;
  /** Ends the pool, closes PGlite and releases the lock file. */
  close(): Promise<void>;
}

export interface PgliteStoreOptions {
  dataDir: string | null;
  lock: DirLock | null;
  logger: Logger;
  label: string;
  guardTransactions: boolean;
}

export async function openPgliteBackend(
  dataDir: string,
  options: Pick<OpenStoreOptions, "pgliteTemplate" | "pgliteDataTemplate" | "guardTransactions">,
  logger: Logger,
): Promise<PgliteBackend> {
  // Compiled while the rest of the opening runs (on a first start, while the template is unpacked).
  void compilePgliteWasm();
  const inMemory = dataDir.startsWith("memory://");
  let lock: DirLock | null = null;
  let pgDir = dataDir;
  let fromTemplate = false;
  try {
    if (!inMemory) {
      const dir = resolve(dataDir);
      mkdirSync(dir, { recursive: true });
      lock = acquireDirLock(dir);
      pgDir = join(dir, PGLITE_SUBDIR);
      const template =
        options.pgliteDataTemplate === undefined ? BUILT_DATA_TEMPLATE_DIR : options.pgliteDataTemplate;
      if (template !== null && !options.pgliteTemplate && needsCreating(pgDir))
        fromTemplate = await createFromTemplate(template, pgDir, logger);
    }
    let pglite: PGlite;
    try {
      pglite = await createPglite(
        pgDir,
        options.pgliteTemplate ? { loadDataDir: options.pgliteTemplate } : {},
      );
    } catch (error) {
      if (!fromTemplate) throw error;
      // Nothing but the template is in it yet: start again the way a store was always created.
      logger.warn(
        { err: error },
        "the store made from the prebuilt data directory did not start; creating it with initdb",
      );
      rmSync(pgDir, { recursive: true, force: true });
      pglite = await createPglite(pgDir, {});
    }
    return pgliteBackend(pglite, {
      dataDir: inMemory ? null : resolve(dataDir),
      lock,
      logger,
      label: dataDir,
      guardTransactions: options.guardTransactions ?? false,
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** The pool over an open PGlite instance, and how to close both. */
export function pgliteBackend(pglite: PGlite, opts: PgliteStoreOptions): PgliteBackend {
  const pool = createPglitePool(pglite);
  pool.on("error", (error) => opts.logger.error({ err: error }, "embedded store connection error"));
  opts.logger.info({ backend: "pglite", dataDir: opts.dataDir ?? opts.label }, "store opened");
  return {
    pool,
    dataDir: opts.dataDir,
    async close() {
      try {
        await pool.end();
        if (!pglite.closed) await pglite.close();
      } finally {
        opts.lock?.release();
      }
    },
  };
}
