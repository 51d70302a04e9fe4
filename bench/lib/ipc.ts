/**
 * The child side of the harness protocol. A child gets its configuration as one JSON argument, and talks back
 * with single stdout lines: `BENCH_READY {json}` once a server listens, `BENCH_RESULT {json}` when a worker is
 * done. Anything else on stdout/stderr is the child's own output and is only shown when it fails.
 */

export const READY_PREFIX = "BENCH_READY ";
export const RESULT_PREFIX = "BENCH_RESULT ";

export function readChildConfig<T>(): T {
  const raw = process.argv[2];
  if (raw === undefined) throw new Error("bench child started without its JSON configuration argument");
  return JSON.parse(raw) as T;
}

export function announceReady(info: { url: string } & Record<string, unknown>): void {
  process.stdout.write(`${READY_PREFIX}${JSON.stringify(info)}\n`);
}

/** Resolves once the line is flushed: a pipe write is asynchronous, and exiting earlier would cut it short. */
export function reportResult(result: unknown): Promise<void> {
  return new Promise((done, fail) => {
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`, (error) =>
      error ? fail(error) : done(),
    );
  });
}

/** Closes a server child on SIGTERM/SIGINT, then exits; a close that hangs is cut short. */
export function closeOnSignal(close: () => Promise<void>): void {
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    setTimeout(() => process.exit(0), 3000).unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`close failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
