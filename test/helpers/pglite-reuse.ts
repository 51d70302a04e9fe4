/**
 * The tests' embedded stores, on PGlite instances reused within a test file. Starting an instance from the
 * template (migrated, with pg-boss's schema and queues, as the app's prebuilt store) costs 0.5 s of CPU on an
 * idle machine and several seconds on a busy one, and many tests open a store (or a whole app) each. When a
 * store is closed its instance is emptied back to the template's state when the file's next store needs one:
 * the session reset (`DISCARD ALL`), then, when the test changed only rows, the rows emptied back
 * (store-reset.ts); when it changed the schemas, every schema dropped, the migrations run and pg-boss installed
 * again. Either way that store sees exactly what a new instance would. An instance that cannot be emptied (a
 * test broke it) is closed, and the store starts a new one.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { Logger } from "pino";
import { pino } from "pino";
import { createJobs } from "../../src/jobs/index.ts";
import { createPglite, pgliteStore, type Store } from "../../src/store/db.ts";
import { runMigrations } from "../../src/store/migrate.ts";
import { type CleanState, captureCleanState, resetToCleanState, type Scope } from "./store-reset.ts";

/** Instances of closed stores, waiting for the file's next store (emptied then, not when closed: the last one
 * of a file is never needed again). */
const idle: PGlite[] = [];

/** Schemas PostgreSQL itself keeps (`pg_catalog`, `information_schema`, `pg_toast`, …). */
const SYSTEM_SCHEMA = "nspname = 'information_schema' OR nspname LIKE 'pg\\_%'";

/** Every schema but PostgreSQL's own (`$1`: none left out). */
const ALL_SCHEMAS: Scope = { where: `nspname <> ALL($1::text[]) AND NOT (${SYSTEM_SCHEMA})`, param: [] };

/** Each instance's clean state: the template's, recorded when the instance started or was last rebuilt. */
const cleanStates = new WeakMap<PGlite, CleanState>();

/** A migrated, empty store on an idle instance when there is one, else on a new one from the template. */
export async function openReusedPglite(template: () => Promise<Blob>, logger?: Logger): Promise<Store> {
  const log = logger ?? pino({ level: "silent" });
  const pglite = (await reuse()) ?? (await fresh(template));
  const store = pgliteStore(withoutClose(pglite), {
    dataDir: null,
    lock: null,
    logger: log,
    label: "memory://",
    guardTransactions: true,
  });
  try {
    // As `openStore` does: on the template (or an emptied instance) every migration is recorded already.
    await runMigrations(store, { logger: log });
  } catch (error) {
    await store.close();
    await pglite.close();
    throw error;
  }
  const close = store.close.bind(store);
  let closing: Promise<void> | null = null;
  store.close = () => {
    closing ??= (async () => {
      await close();
      if (!pglite.closed) idle.push(pglite);
    })();
    return closing;
  };
  return store;
}

/** Shuts down the idle instances (after the file's tests). */
export async function closeIdlePglites(): Promise<void> {
  const instances = idle.splice(0);
  await Promise.allSettled(instances.map((p) => p.close()));
}

async function fresh(template: () => Promise<Blob>): Promise<PGlite> {
  const pglite = await createPglite("memory://", { loadDataDir: await template() });
  cleanStates.set(pglite, await captureCleanState(pglite, ALL_SCHEMAS));
  return pglite;
}

/** An idle instance emptied, or undefined when there is none (or it could not be emptied). */
async function reuse(): Promise<PGlite | undefined> {
  const pglite = idle.pop();
  if (!pglite) return undefined;
  try {
    await empty(pglite);
    return pglite;
  } catch {
    await pglite.close().catch(() => {});
    return undefined;
  }
}

/** Back to the template's state: no session state, and the rows emptied back or everything built again. */
async function empty(pglite: PGlite): Promise<void> {
  // A transaction a test left open (a warning, not an error, when there is none).
  await pglite.exec("ROLLBACK");
  // Prepared statements, temporary tables, settings, advisory locks, LISTENs.
  await pglite.exec("DISCARD ALL");
  const clean = cleanStates.get(pglite);
  if (!clean || !(await resetToCleanState(pglite, ALL_SCHEMAS, clean))) await rebuild(pglite);
  // The emptying's own prepared statements and session state, as on a new instance.
  await pglite.exec("DISCARD ALL");
}

/** Every schema dropped, `public` created again, the migrations run and pg-boss installed: the template's state. */
async function rebuild(pglite: PGlite): Promise<void> {
  cleanStates.delete(pglite);
  const { rows } = await pglite.query<{ nspname: string }>(
    `SELECT nspname FROM pg_namespace WHERE NOT (${SYSTEM_SCHEMA})`,
  );
  const drops = rows.map((r) => `DROP SCHEMA ${quoteIdent(r.nspname)} CASCADE;`).join("\n");
  await pglite.exec(`${drops}\nCREATE SCHEMA public;`);
  const store = pgliteStore(withoutClose(pglite), {
    dataDir: null,
    lock: null,
    logger: pino({ level: "silent" }),
    label: "memory://",
    guardTransactions: false,
  });
  try {
    await runMigrations(store);
    await installJobs(store);
  } finally {
    await store.close();
  }
  await pglite.exec("DISCARD ALL");
  cleanStates.set(pglite, await captureCleanState(pglite, ALL_SCHEMAS));
}

/** pg-boss's schema and our queues, as the app's first start (or its prebuilt store) leaves them. */
export async function installJobs(store: Store): Promise<void> {
  const jobs = createJobs({ store, owners: false });
  await jobs.start();
  await jobs.stop({ graceMs: 0 });
}

/** The instance as a store may hold it: closing the store ends its pool but leaves the instance running. */
function withoutClose(pglite: PGlite): PGlite {
  return new Proxy(pglite, {
    get(target, property) {
      if (property === "close") return async () => {};
      if (property === "closed") return target.closed;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
