/**
 * The closed set of errors the store raises on purpose. Callers switch on `code`; messages say what to do.
 * Database errors from `pg` (constraint violations, connection loss) are passed through unchanged.
 */

export type StoreErrorCode =
  | "STORE_LOCKED"
  | "MIGRATION_CHECKSUM_MISMATCH"
  | "MIGRATION_FAILED"
  | "QUERY_OUTSIDE_TRANSACTION"
  | "TRANSACTION_FINISHED"
  | "STORE_CLOSED"
  | "STORE_UNAVAILABLE";

export abstract class StoreError extends Error {
  abstract readonly code: StoreErrorCode;
  override readonly cause: unknown;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = new.target.name;
    this.cause = options.cause;
  }
}

/** Another live process holds the embedded store's directory. */
export class StoreLockedError extends StoreError {
  readonly code = "STORE_LOCKED";
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
    readonly holderHost: string,
    detail: string,
  ) {
    super(
      `The embedded store in ${dataDir} is in use by process ${holderPid} on ${holderHost} (${detail}). ` +
        "Stop that process, or point ORDER_DESK_DATA_DIR at another directory; to run several replicas, " +
        "set DATABASE_URL to a PostgreSQL database instead.",
    );
  }
}

/** An applied migration file was edited after it landed. */
export class MigrationChecksumError extends StoreError {
  readonly code = "MIGRATION_CHECKSUM_MISMATCH";
  constructor(readonly migration: string) {
    super(
      `Migration ${migration} was changed after it was applied to this database. Migrations are never edited ` +
        "once landed: restore the original file and add a new migration with the change.",
    );
  }
}

export class MigrationFailedError extends StoreError {
  readonly code = "MIGRATION_FAILED";
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(
      `Migration ${migration} failed and was rolled back: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * `store.query`/`store.transaction` was called inside a transaction callback. On the embedded store (a pool of
 * one connection) that would wait forever for the connection the transaction holds; on PostgreSQL it would
 * silently run outside the transaction. Use the `tx` handed to the callback instead.
 */
export class QueryOutsideTransactionError extends StoreError {
  readonly code = "QUERY_OUTSIDE_TRANSACTION";
  constructor() {
    super(
      "store.query/store.transaction was called inside a transaction callback: pass the callback's `tx` " +
        "to repositories and jobs.send(…, { tx }) instead (the embedded store has one connection, so this " +
        "would deadlock).",
    );
  }
}

export class StoreClosedError extends StoreError {
  readonly code = "STORE_CLOSED";
  constructor() {
    super("The store is closed; open a new one with openStore().");
  }
}

/** A `tx` was used after its transaction committed or rolled back (e.g. kept in a closure). */
export class TransactionFinishedError extends StoreError {
  readonly code = "TRANSACTION_FINISHED";
  constructor() {
    super(
      "This transaction has already finished: run the query inside the transaction callback, or on the store.",
    );
  }
}

/** PostgreSQL could not be reached at start-up. The message names the server, never the password. */
export class StoreUnavailableError extends StoreError {
  readonly code = "STORE_UNAVAILABLE";
  constructor(
    readonly target: string,
    cause: unknown,
  ) {
    super(
      `Could not connect to PostgreSQL at ${target}: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        "Check DATABASE_URL and that the server accepts connections.",
      { cause },
    );
  }
}
