/**
 * node-postgres on top of an in-process PGlite: a `pg.Pool` of one client whose "connection" hands protocol
 * messages to PGlite instead of a socket. node-postgres parses and serialises every value, so rows and
 * parameters behave exactly as on PostgreSQL.
 *
 * Why not PGlite's own `@electric-sql/pglite/node-postgres` adapter (or `pglite-socket`): both forward each
 * protocol message on its own, and PGlite answers every call with a ReadyForQuery when "necessary". After an
 * error in an extended-protocol query outside a transaction (a unique violation on a plain insert) that is one
 * ReadyForQuery too many: node-postgres starts the next query on it, every later answer is off by one, and the
 * pool is dead. This connection sends a query's messages to PGlite together, at Sync, and passes on exactly
 * one ReadyForQuery per Sync or simple Query, dropping unsolicited ones.
 */
import { EventEmitter } from "node:events";
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { serialize } from "pg-protocol";

/** One PGlite session shared by every connection the pool makes: messages are executed strictly in order. */
class PgliteSession {
  private queue: Promise<unknown>;
  /**
   * node-postgres's record of prepared statements, kept per connection. Here every connection is the same
   * PGlite session, whose statements outlive a connection the pool discards after an error: they are shared.
   */
  readonly parsedStatements: Record<string, string> = {};
  readonly submittedNamedStatements: Record<string, string> = {};

  constructor(readonly pglite: PGlite) {
    this.queue = pglite.waitReady;
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task);
    this.queue = next.catch(() => {});
    return next;
  }
}

type Message = { name: string };

/** The subset of node-postgres's `Connection` that `pg.Client` calls. */
class PgliteConnection extends EventEmitter {
  // Read by pg's Client.end(); a stream to "destroy" when a query is still running.
  _connecting = false;
  readonly stream = { destroy: () => this.end() };
  readonly parsedStatements: Record<string, string>;
  readonly submittedNamedStatements: Record<string, string>;

  private pending: Buffer[] = [];
  private expectedReady = 0;
  private ended = false;

  constructor(private readonly session: PgliteSession) {
    super();
    this.parsedStatements = session.parsedStatements;
    this.submittedNamedStatements = session.submittedNamedStatements;
  }

  connect(): void {
    this._connecting = true;
    this.session.run(async () => {
      process.nextTick(() => {
        if (!this.ended) this.emit("readyForQuery");
      });
    });
  }

  requestSsl(): void {}
  startup(): void {}
  password(): void {}
  cancel(): void {}
  ref(): void {}
  unref(): void {}

  query(text: string): void {
    this.expectedReady++;
    this.send([serialize.query(text)]);
  }

  parse(query: Parameters<typeof serialize.parse>[0]): void {
    this.pending.push(serialize.parse(query));
  }

  bind(config: Parameters<typeof serialize.bind>[0]): void {
    this.pending.push(serialize.bind(config));
  }

  describe(msg: Parameters<typeof serialize.describe>[0]): void {
    this.pending.push(serialize.describe(msg));
  }

  execute(config: Parameters<typeof serialize.execute>[0]): void {
    this.pending.push(serialize.execute(config));
  }

  close(msg: Parameters<typeof serialize.close>[0]): void {
    this.pending.push(serialize.close(msg));
  }

  flush(): void {
    this.pending.push(serialize.flush());
    this.send(this.take());
  }

  sync(): void {
    this.pending.push(serialize.sync());
    this.expectedReady++;
    this.send(this.take());
  }

  sendCopyFromChunk(): void {
    this.fail("COPY is not supported on the embedded store");
  }
  endCopyFrom(): void {}
  sendCopyFail(): void {}

  end(): void {
    if (this.ended) return;
    this.ended = true;
    // Like a socket closing: pg waits for 'end', emitted after what is already queued.
    this.session
      .run(async () => {})
      .finally(() => {
        this.emit("end");
        this.removeAllListeners();
      });
  }

  private take(): Buffer[] {
    const batch = this.pending;
    this.pending = [];
    return batch;
  }

  private send(batch: Buffer[]): void {
    const message = Buffer.concat(batch);
    this.session
      .run(() => this.session.pglite.execProtocolStream(message, { throwOnError: false }))
      .then(
        (messages) => {
          for (const m of messages as Message[]) {
            if (this.ended) return;
            if (m.name === "readyForQuery") {
              // PGlite may answer a batch that failed part-way with an extra ReadyForQuery; pass on only the one
              // node-postgres waits for.
              if (this.expectedReady === 0) continue;
              this.expectedReady--;
            }
            this.emit(m.name === "error" ? "errorMessage" : m.name, m);
          }
        },
        (error: unknown) => this.fail(error),
      );
  }

  private fail(error: unknown): void {
    if (this.ended) return;
    this.emit("error", error instanceof Error ? error : new Error(String(error)));
  }
}

/** A `pg.Pool` of one client on `pglite`. */
export function createPglitePool(pglite: PGlite): pg.Pool {
  const session = new PgliteSession(pglite);
  class PgliteClient extends pg.Client {
    constructor(config: pg.ClientConfig) {
      super({ ...config, connection: new PgliteConnection(session) } as pg.ClientConfig);
    }
  }
  return new pg.Pool({
    Client: PgliteClient as unknown as typeof pg.Client,
    max: 1,
    idleTimeoutMillis: 0,
    // Placeholders: pg reads them, PGlite ignores them.
    user: "postgres",
    database: "postgres",
    host: "localhost",
    port: 5432,
  });
}
