/**
 * The tests' embedded stores, on PGlite instances reused within a test file. Starting an instance from the
 * migrated template costs 0.5 s of CPU on an idle machine and several seconds on a busy one, and many tests
 * open a store (or a whole app) each. When a store is closed its instance is emptied back to what the template
 * holds when the file's next store needs one: the session reset (`DISCARD ALL`), every schema dropped, `public`
 * created again and the migrations run, so that store sees exactly what a new instance would. An instance that
 * cannot be emptied (a test broke it) is closed, and the store starts a new one.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { Logger } from "pino";
import { pino } from "pino";
import { createPglite, pgliteStore, type Store } from "../../src/store/db.ts";
import { runMigrations } from "../../src/store/migrate.ts";

/** Instances of closed stores, waiting for the file's next store (emptied then, not when closed: the last one
 * of a file is never needed again). */
const idle: PGlite[] = [];

/** Schemas PostgreSQL itself keeps (`pg_catalog`, `information_schema`, `pg_toast`, …). */
const SYSTEM_SCHEMA = "nspname = 'information_schema' OR nspname LIKE 'pg\\_%'";

/** A migrated, empty store on an idle instance when there is one, else on a new one from the template. */
export async function openReusedPglite(template: () => Promise<Blob>, logger?: Logger): Promise<Store> {
  const log = logger ?? pino({ level: "silent" });
  const pglite = (await reuse()) ?? (await createPglite("memory://", { loadDataDir: await template() }));
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

/** Back to the template's state: no session state, no schema but a new `public`, the migrations applied. */
async function empty(pglite: PGlite): Promise<void> {
  // A transaction a test left open (a warning, not an error, when there is none).
  await pglite.exec("ROLLBACK");
  // Prepared statements, temporary tables, settings, advisory locks, LISTENs.
  await pglite.exec("DISCARD ALL");
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
  } finally {
    await store.close();
  }
  // The migrations' own prepared statements and session state, as on a new instance.
  await pglite.exec("DISCARD ALL");
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
