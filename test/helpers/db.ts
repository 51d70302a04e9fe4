/**
 * Stores for tests, isolated per test file so files run in parallel:
 * - PGlite: an in-memory instance loaded from a migrated template cached in the OS temp dir (~0.5 s instead of
 *   the seconds initdb takes), shared by the tests of one file. A closed store's instance is not shut down but
 *   emptied back to the template's state (pglite-reuse.ts) and serves the file's next store: starting an
 *   instance costs seconds of CPU on a busy machine, emptying one a small fraction of that.
 * - PostgreSQL (when `DATABASE_URL` is set, as `.ci/run` does): a fresh schema per store, dropped on close.
 *
 * `getTestStore()` is the shared store of the file (closed after the file's tests). `openTestStore()` gives a
 * new one the caller closes, for tests that need an empty database.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import { type OpenStoreOptions, openStore, type Store } from "../../src/store/db.ts";
import { loadMigrations } from "../../src/store/migrate.ts";
import { buildPgliteTemplate } from "../../src/store/pglite/data-template-build.ts";
import { closeIdlePglites, openReusedPglite } from "./pglite-reuse.ts";

export type Backend = "pglite" | "postgres";

const databaseUrl = process.env.DATABASE_URL || undefined;

/** Every backend available here: PGlite always, PostgreSQL when `DATABASE_URL` is set. */
export const TEST_BACKENDS: readonly Backend[] = databaseUrl ? ["pglite", "postgres"] : ["pglite"];

/** PostgreSQL when `DATABASE_URL` is set, else PGlite. */
export function defaultBackend(): Backend {
  return databaseUrl ? "postgres" : "pglite";
}

export function testDatabaseUrl(): string {
  if (!databaseUrl) throw new Error("DATABASE_URL is not set");
  return databaseUrl;
}

const shared = new Map<Backend, Promise<Store>>();
const opened = new Set<Store>();

/** The file's shared, migrated store on `backend`. */
export function getTestStore(backend: Backend = defaultBackend()): Promise<Store> {
  let store = shared.get(backend);
  if (!store) {
    store = openTestStore(backend);
    shared.set(backend, store);
  }
  return store;
}

/** A new, empty, migrated store (unless `migrate: false`); close it when done (or it is closed after the file). */
export async function openTestStore(
  backend: Backend = defaultBackend(),
  options: Pick<OpenStoreOptions, "migrate" | "logger"> = {},
): Promise<Store> {
  let store: Store;
  if (backend === "pglite" && options.migrate !== false) {
    store = await openReusedPglite(pgliteTemplate, options.logger);
  } else if (backend === "pglite") {
    store = await openStore({
      ...options,
      dataDir: "memory://",
      pgliteTemplate: await pgliteTemplate(),
      guardTransactions: true,
    });
  } else {
    store = await openStore({
      ...options,
      databaseUrl: testDatabaseUrl(),
      schema: uniqueSchemaName(),
      guardTransactions: true,
    });
    const close = store.close.bind(store);
    const schema = store.schema!;
    let closing: Promise<void> | null = null;
    store.close = () => {
      closing ??= (async () => {
        await store.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
        await store.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`).catch(() => {});
        await close();
      })();
      return closing;
    };
  }
  opened.add(store);
  return store;
}

export function uniqueSchemaName(): string {
  return `t_${process.pid}_${randomBytes(4).toString("hex")}`;
}

let template: Promise<Blob> | null = null;

/** The migrated empty PGlite, built once per machine and migration set, cached in the temp dir. */
export function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    // The package does not export its package.json; find it from its entry point.
    const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
    const pgliteVersion = readFileSync(join(dirname(entry), "..", "package.json"), "utf8");
    const key = createHash("sha256")
      .update(pgliteVersion)
      .update(JSON.stringify(loadMigrations().map((m) => m.checksum)))
      .digest("hex")
      .slice(0, 16);
    const path = join(tmpdir(), `order-desk-pglite-template-${key}.tar`);
    if (existsSync(path)) return new Blob([readFileSync(path)]);
    const blob = await buildPgliteTemplate();
    // Written aside then renamed, so a parallel test file never reads half a template.
    const partial = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
    renameSync(partial, path);
    return blob;
  })();
  return template;
}

export async function closeTestStores(): Promise<void> {
  const stores = [...opened];
  opened.clear();
  shared.clear();
  await Promise.allSettled(stores.map((s) => s.close()));
  await closeIdlePglites();
}

afterAll(closeTestStores);
