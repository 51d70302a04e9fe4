/**
 * What the operators' commands share: the store they work on, and their refusal on the embedded store. The
 * embedded store's data directory belongs to the running Order Desk (PGlite is one process's database, and the
 * directory is locked), so a second process cannot reach it; on that deployment the same work is done from
 * Slack, and the refusal names where.
 */

import { loadOperationsTarget, type OperationsTarget } from "../config/operations.ts";
import { ConfigError } from "../config.ts";
import { openStore, type Store } from "../store/db.ts";

export interface OperationsIo {
  stdout: NodeJS.WritableStream;
  stderr: { write(chunk: string): unknown };
}

/** Injection points for tests: a store of their own (a schema on the test database), a clock. */
export interface OperationsDeps {
  store?: Store;
  now?: () => Date;
}

export const EXIT_OPS = { ok: 0, failed: 1, usage: 2, notHere: 3 } as const;

export const SLACK_INSTEAD = `On the embedded store, do this from Slack instead:
  - a placement that failed for good: Retry now (or Mark handled) on its alert in the admin channel;
  - updates that could not be posted: Retry posting on their alert;
  - orphan events: Attach to order… (or Ignore) on their alert;
  - all of these, for admins, with counts: "Needs attention" on Order Desk's App Home;
  - a month's orders as CSV: /order export 2026-11 (sent to your DM).`;

export function refusalOnEmbeddedStore(command: string): string {
  return (
    `order-desk ${command}: this Order Desk keeps its data in the embedded store (DATABASE_URL is not set). ` +
    "The running Order Desk holds that data directory, so the command line cannot reach it, and it is for " +
    `deployments on PostgreSQL only.\n${SLACK_INSTEAD}\n`
  );
}

export type Opened = { ok: true; store: Store; target: OperationsTarget | null; close(): Promise<void> };

/** The store to work on, or the exit code after saying why not (configuration, the embedded store). */
export async function openOperationsStore(
  command: string,
  env: Record<string, string | undefined>,
  io: OperationsIo,
  deps: OperationsDeps,
): Promise<Opened | { ok: false; exitCode: number }> {
  if (deps.store) return { ok: true, store: deps.store, target: null, close: async () => {} };
  let target: OperationsTarget;
  try {
    target = loadOperationsTarget(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`order-desk ${command}: ${error.message}\n`);
    return { ok: false, exitCode: EXIT_OPS.usage };
  }
  if (target.databaseUrl === null) {
    io.stderr.write(refusalOnEmbeddedStore(command));
    return { ok: false, exitCode: EXIT_OPS.notHere };
  }
  // The running replicas apply migrations; this command only reads and re-queues.
  const store = await openStore({ databaseUrl: target.databaseUrl, migrate: false });
  return { ok: true, store, target, close: () => store.close() };
}
