/**
 * Stores for tests, isolated per test file so files run in parallel. Each holds what the app's store holds
 * after its first start: the migrations, and pg-boss's schema and queues.
 * - PGlite: an in-memory instance loaded from a template cached in the OS temp dir (~0.5 s instead of the
 *   seconds initdb takes), shared by the tests of one file. A closed store's instance is not shut down but
 *   emptied back to the template's state (pglite-reuse.ts) and serves the file's next store: starting an
 *   instance costs seconds of CPU on a busy machine, emptying one a small fraction of that.
 * - PostgreSQL (when `DATABASE_URL` is set, as `.ci/run` does): a schema per store (and its `_jobs` schema for
 *   pg-boss), built on first use; a closed store's schemas are emptied back (store-reset.ts) for the file's next
 *   store, and dropped after the file.
 *
 * `getTestStore()` is the shared store of the file (closed after the file's tests). `openTestStore()` gives a
 * new one the caller closes, for tests that need an empty database.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { afterAll } from "vitest";
import { type OpenStoreOptions, openStore, type Store } from "../../src/store/db.ts";
import { loadMigrations } from "../../src/store/migrate.ts";
import { buildPgliteTemplate } from "../../src/store/pglite/data-template-build.ts";
import { closeIdlePglites, installJobs, openReusedPglite } from "./pglite-reuse.ts";
import { type CleanState, captureCleanState, resetToCleanState, type Scope } from "./store-reset.ts";

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
  } else if (options.migrate === false) {
    store = await openStore({
      ...options,
      databaseUrl: testDatabaseUrl(),
      schema: uniqueSchemaName(),
      guardTransactions: true,
    });
    dropOnClose(store);
  } else {
    store = await openPostgresSchema(options);
  }
  opened.add(store);
  return store;
}

/** The schemas of closed PostgreSQL stores, waiting for the file's next store. */
const idleSchemas: { schema: string; clean: CleanState }[] = [];

const scopeOf = (schema: string): Scope => ({
  where: "nspname = ANY($1::text[])",
  param: [schema, `${schema}_jobs`],
});

/** A migrated store with pg-boss installed, on a closed store's schema emptied back, or on a new one. */
async function openPostgresSchema(options: Pick<OpenStoreOptions, "logger">): Promise<Store> {
  const open = (schema: string) =>
    openStore({ ...options, databaseUrl: testDatabaseUrl(), schema, guardTransactions: true });
  let store: Store | undefined;
  let clean: CleanState | undefined;
  for (let idle = idleSchemas.pop(); idle && !store; idle = idleSchemas.pop()) {
    if (await emptySchema(idle.schema, idle.clean)) {
      store = await open(idle.schema);
      clean = idle.clean;
    } else {
      await dropSchemas(idle.schema);
    }
  }
  if (!store || !clean) {
    store = await open(uniqueSchemaName());
    await installJobs(store);
    const schema = store.schema!;
    // On a connection of its own, as the emptying: names in the catalog read as the search path shows them.
    clean = await withClient((client) => captureCleanState(client, scopeOf(schema)));
  }
  const schema = store.schema!;
  const state = clean;
  const close = store.close.bind(store);
  let closing: Promise<void> | null = null;
  store.close = () => {
    closing ??= (async () => {
      await close();
      idleSchemas.push({ schema, clean: state });
    })();
    return closing;
  };
  return store;
}

/** Empties a closed store's schemas back; false when that cannot be done (the caller drops them). */
async function emptySchema(schema: string, clean: CleanState): Promise<boolean> {
  try {
    return await withClient(async (client) => {
      // A connection a test left open (a child process still stopping) must not hold the file up.
      await client.query("SET lock_timeout = '5s'");
      return resetToCleanState(client, scopeOf(schema), clean);
    });
  } catch {
    return false;
  }
}

async function withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function dropSchemas(schema: string): Promise<void> {
  await withClient(async (client) => {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
  }).catch(() => {
    // Left for the server's next clean-up: a test schema holds no data anyone needs.
  });
}

function dropOnClose(store: Store): void {
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
    const pgBossVersion = readFileSync(
      join(dirname(createRequire(import.meta.url).resolve("pg-boss")), "..", "package.json"),
      "utf8",
    );
    const key = createHash("sha256")
      .update(pgliteVersion)
      .update(pgBossVersion)
      .update(JSON.stringify(loadMigrations().map((m) => m.checksum)))
      .digest("hex")
      .slice(0, 16);
    const path = join(tmpdir(), `order-desk-pglite-template-${key}.tar`);
    if (existsSync(path)) return new Blob([readFileSync(path)]);
    const blob = await buildPgliteTemplate({ prepare: installJobs });
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
  await Promise.allSettled(idleSchemas.splice(0).map((s) => dropSchemas(s.schema)));
}

afterAll(closeTestStores);
