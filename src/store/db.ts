/**
 * The store: one SQL dialect (PostgreSQL) through `pg`, on one of two backends.
 *
 * - `databaseUrl` set → PostgreSQL through a `pg.Pool`. Several replicas may share it.
 * - otherwise → embedded PGlite in `dataDir`, reached in-process through node-postgres (pglite/node-postgres.ts) as a
 *   `pg.Pool` of one connection. PGlite is a single session, so the pool has exactly one client; repository
 *   code, transactions and pg-boss run unchanged on both, with node-postgres's own value parsing.
 *
 * Why in-process and not `pglite-socket`: it is faster, opens no listener that any local user could connect
 * to without a password, leaves no socket file behind after a crash, and has no 107-byte Unix socket path
 * limit on deep data directories; and the socket server mishandles the same protocol case (pglite/node-postgres.ts).
 *
 * With a pool of one, a query on the pool from inside a transaction callback would wait forever for the
 * connection the transaction holds. With `guardTransactions` (the tests' stores), `store.query` and
 * `store.transaction` detect that case and throw `QueryOutsideTransactionError`, on both backends, so the
 * mistake shows up in tests on either. It is off by default: the check needs an AsyncLocalStorage, which on
 * Node 20 and 22 puts a hook on every promise of the process (in `npm run bench -- slack-ack` with the submit
 * handler reduced to `ack()`, turning it off took acks per second from 0.70× to 0.75× Bolt's bare app), to
 * catch a programming mistake the tests already catch.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { type Logger, pino } from "pino";
import {
  QueryOutsideTransactionError,
  StoreClosedError,
  StoreUnavailableError,
  TransactionFinishedError,
} from "./errors.ts";
import { runMigrations } from "./migrate.ts";
import { PGLITE_SUBDIR } from "./pglite/data-template.ts";
import { createPglite, PGLITE_CONF } from "./pglite/instance.ts";
import { openPgliteBackend, type PgliteStoreOptions, pgliteBackend } from "./pglite/open.ts";

export { createPglite, PGLITE_CONF };

import { runNamed, StatementNames } from "./statements.ts";

/** Rows are typed by the repository that reads them (the database is our own boundary, already validated). */
// biome-ignore lint/suspicious/noExplicitAny: rows are shaped by the SQL text; repositories map them to types.
export type Row = Record<string, any>;

export interface QueryResult<R extends Row = Row> {
  rows: R[];
  rowCount: number | null;
}

/** Anything that runs SQL: the store itself or a transaction. Repositories take one as first argument. */
export interface Queryable {
  query<R extends Row = Row>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
}

/** A parameterised statement (or a part of one), as text and values. */
export interface SqlQuery {
  text: string;
  values: unknown[];
}

/** The `tx` handed to a transaction callback. */
export interface Transaction extends Queryable {
  /** Runs `fn` after this transaction commits (never when it rolls back). */
  afterCommit(fn: () => void): void;
}

export type StoreKind = "pglite" | "postgres";

export interface Store extends Queryable {
  readonly kind: StoreKind;
  /** The underlying pool (one connection on PGlite). Prefer `query`/`transaction`. */
  readonly pool: pg.Pool;
  /** The PostgreSQL URL (contains the password: never log it); `null` on the embedded store. */
  readonly connectionString: string | null;
  /** The embedded store's directory (`null` on PostgreSQL or in memory). */
  readonly dataDir: string | null;
  /** The PostgreSQL schema the store lives in when one was given (tests), else `null` (the default path). */
  readonly schema: string | null;
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Ends the pool, closes PGlite and releases the lock file. Idempotent. */
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** PostgreSQL URL. When absent the embedded store is used. */
  databaseUrl?: string;
  /** Directory of the embedded store (default `./data`); `memory://` keeps it in memory (tests). */
  dataDir?: string;
  /** PostgreSQL only: a schema to create and use (`search_path`), e.g. one per test file. */
  schema?: string;
  /** PostgreSQL only: pool size (default 10). */
  poolSize?: number;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  /** Embedded store only: start an empty store from a `dumpDataDir()` tarball (tests use a migrated template). */
  pgliteTemplate?: Blob;
  /**
   * Embedded store on disk only: the prebuilt data directory a new store is unpacked from (pglite/data-template.ts);
   * default the one `npm run build` made, `null` to always run initdb. Used only when it suits this install.
   */
  pgliteDataTemplate?: string | null;
  /** Throw `QueryOutsideTransactionError` for a query on the store inside its own transaction (default off; tests). */
  guardTransactions?: boolean;
  logger?: Logger;
}

export { PGLITE_SUBDIR };

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,40}$/;

interface TxContext {
  readonly owner: object;
  active: boolean;
}
const txContext = new AsyncLocalStorage<TxContext>();

export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  const logger = options.logger ?? pino({ level: "silent" });
  const store = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options, logger)
    : await openPglite(options.dataDir ?? "./data", options, logger);
  if (options.migrate ?? true) {
    try {
      await runMigrations(store, { logger });
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  return store;
}

async function openPostgres(databaseUrl: string, options: OpenStoreOptions, logger: Logger): Promise<Store> {
  const schema = options.schema ?? null;
  if (schema !== null && !SCHEMA_NAME.test(schema)) {
    throw new TypeError(`schema must match ${SCHEMA_NAME} (got ${JSON.stringify(schema)})`);
  }
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    application_name: "order-desk",
    ...(schema !== null && { options: `-c search_path=${schema}` }),
  });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on("error", (error) =>
    logger.warn({ err: error }, "PostgreSQL connection lost; reconnecting on next use"),
  );
  try {
    await pool.query("SELECT 1");
    if (schema !== null) await createSchema(pool, schema);
  } catch (error) {
    await pool.end().catch(() => {});
    throw new StoreUnavailableError(describeTarget(databaseUrl), error);
  }
  logger.info({ backend: "postgres", target: describeTarget(databaseUrl), schema }, "store opened");
  return makeStore(
    { kind: "postgres", pool, connectionString: databaseUrl, dataDir: null, schema },
    options.guardTransactions ?? false,
    async () => {
      await pool.end();
    },
  );
}

async function createSchema(pool: pg.Pool, schema: string): Promise<void> {
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (error) {
    // Two replicas creating it at once: one wins, the other sees a unique violation. Either way it exists.
    const code = (error as { code?: string }).code;
    if (code !== "23505" && code !== "42P06") throw error;
  }
}

async function openPglite(dataDir: string, options: OpenStoreOptions, logger: Logger): Promise<Store> {
  const opened = await openPgliteBackend(dataDir, options, logger);
  return makeStore(
    { kind: "pglite", pool: opened.pool, connectionString: null, dataDir: opened.dataDir, schema: null },
    options.guardTransactions ?? false,
    opened.close,
  );
}

/** A store over an open PGlite instance (the template builders' stores, in memory). */
export function pgliteStore(pglite: PGlite, opts: PgliteStoreOptions): Store {
  const opened = pgliteBackend(pglite, opts);
  return makeStore(
    { kind: "pglite", pool: opened.pool, connectionString: null, dataDir: opened.dataDir, schema: null },
    opts.guardTransactions,
    opened.close,
  );
}

interface StoreShape {
  kind: StoreKind;
  pool: pg.Pool;
  connectionString: string | null;
  dataDir: string | null;
  schema: string | null;
}

function makeStore(shape: StoreShape, guardTransactions: boolean, shutdown: () => Promise<void>): Store {
  let closing: Promise<void> | null = null;
  const owner = {};
  const { pool } = shape;
  const names = new StatementNames();

  const assertUsable = () => {
    if (closing) throw new StoreClosedError();
    if (!guardTransactions) return;
    const ctx = txContext.getStore();
    if (ctx?.active && ctx.owner === owner) throw new QueryOutsideTransactionError();
  };

  return {
    ...shape,
    async query<R extends Row = Row>(text: string, params?: unknown[]) {
      assertUsable();
      return toResult<R>(
        await runNamed<R>(names, (config) => pool.query<R>(config), text, params, { retry: true }),
      );
    },
    async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      assertUsable();
      const client = await pool.connect();
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken = error;
      };
      client.on("error", onError);
      const ctx: TxContext = { owner, active: true };
      const hooks: Array<() => void> = [];
      const tx: Transaction = {
        async query<R extends Row = Row>(text: string, params?: unknown[]) {
          if (!ctx.active) throw new TransactionFinishedError();
          return toResult<R>(
            await runNamed<R>(names, (config) => client.query<R>(config), text, params, { retry: false }),
          );
        },
        afterCommit(hook) {
          hooks.push(hook);
        },
      };
      let result: T;
      try {
        await client.query("BEGIN");
        result = guardTransactions ? await txContext.run(ctx, () => fn(tx)) : await fn(tx);
        ctx.active = false;
        await client.query("COMMIT");
      } catch (error) {
        ctx.active = false;
        try {
          await client.query("ROLLBACK");
          client.off("error", onError);
          client.release(broken);
        } catch (rollbackError) {
          // The connection is in an unknown state: drop it instead of returning it to the pool.
          client.off("error", onError);
          client.release(rollbackError as Error);
        }
        throw error;
      }
      client.off("error", onError);
      client.release(broken);
      for (const hook of hooks) {
        try {
          hook();
        } catch {
          // A hook is a best-effort nudge (e.g. wake a worker); its failure must not undo a committed write.
        }
      }
      return result;
    },
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

/** node-postgres answers a multi-statement text with one result per statement: keep the last one. */
function toResult<R extends Row>(result: pg.QueryResult<R> | pg.QueryResult<R>[]): QueryResult<R> {
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  return { rows: last?.rows ?? [], rowCount: last?.rowCount ?? null };
}

/** Runs `fn` after `q` commits when `q` is a store transaction; at once otherwise (the write is already done). */
export function afterCommit(q: Queryable, fn: () => void): void {
  if (isTransaction(q)) q.afterCommit(fn);
  else queueMicrotask(fn);
}

function isTransaction(q: Queryable): q is Transaction {
  return typeof (q as Partial<Transaction>).afterCommit === "function";
}

/** `host:port/database` of a PostgreSQL URL, without user or password, for messages and logs. */
export function describeTarget(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
