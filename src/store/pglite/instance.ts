/**
 * The embedded PostgreSQL (PGlite) instance: its settings, V8's treatment of its WebAssembly, and creating a new
 * data directory from the prebuilt one.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import v8 from "node:v8";
import type { PGlite, PGliteOptions } from "@electric-sql/pglite";
import type { Logger } from "pino";
import { checkDataTemplate, restoreDataTemplate } from "./data-template.ts";

/**
 * What PGlite's PostgreSQL runs with (it rewrites `postgresql.conf` with these on every start, so they apply
 * to stores made before they changed too).
 *
 * - `shared_buffers = 16MB` (PostgreSQL's default is 128MB): PGlite touches all of its shared memory at start, so
 *   the whole buffer pool was resident from the first second, ≈ 150 MB of an idle process's ≈ 390 MB. Order
 *   Desk's tables of a single instance fit in 16 MB many times over, and a page that is not in the pool is
 *   one read from the OS's page cache. `wal_buffers` follows it (1/32, 512 kB).
 * - `wal_init_zero = off`: a new 16 MB WAL segment is zero-filled by default, which on PGlite runs on the Node
 *   thread: a COMMIT stalled 40-50 ms every 16 MB of WAL (about once a second under a burst of modal submits, the
 *   p99 of `npm run bench -- slack-ack`). Zero-filling reserves the disk space up front; PGlite runs with fsync
 *   off, so it buys nothing here, and with it off only the segment's last byte is written.
 */
export const PGLITE_CONF: readonly string[] = ["shared_buffers = 16MB", "wal_init_zero = off"];

export async function createPglite(
  dataDir: string,
  extra: Pick<PGliteOptions, "loadDataDir"> & { conf?: readonly string[] } = {},
): Promise<PGlite> {
  const { conf = [], ...rest } = extra;
  const [{ PGlite }, pgliteWasmModule] = await Promise.all([loadPglite(), compilePgliteWasm()]);
  return PGlite.create({
    dataDir,
    ...rest,
    ...(pgliteWasmModule && { pgliteWasmModule }),
    postgresqlconf: [...PGLITE_CONF, ...conf],
  });
}

const importPglite = () => import("@electric-sql/pglite");
let loadingPglite: ReturnType<typeof importPglite> | null = null;

/**
 * PGlite's JavaScript (≈ 0.8 MB), loaded when the first embedded store opens rather than with this module: on
 * PostgreSQL it is never loaded, and a start that opens the embedded store loads it after the unpacking of a new
 * store and the compiling of the WebAssembly have begun (open.ts), while the rest of the app loads (main.ts).
 */
function loadPglite(): ReturnType<typeof importPglite> {
  loadingPglite ??= importPglite();
  return loadingPglite;
}

/** PGlite's PostgreSQL, compiled to WebAssembly: the file PGlite itself loads when it is not handed the module. */
export const PGLITE_WASM = join(
  dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")),
  "pglite.wasm",
);

type WasmModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;
/** Node's `WebAssembly` global, which the ES library this project compiles against does not declare. */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } })
  .WebAssembly;

let compiling: Promise<WasmModule | undefined> | null = null;

/**
 * Starts compiling PGlite's WebAssembly (once per process) and returns the module, which `createPglite` hands to
 * PGlite instead of letting it read and compile the file itself. `openPgliteBackend` calls it first thing, so on a
 * first start the compiling (≈ 0.1 s, on V8's background threads) overlaps unpacking the prebuilt data directory,
 * while this thread would otherwise wait for the unpacker. Should the file not be where this PGlite keeps it
 * (test/store/pglite-version.test.ts checks that it is), PGlite loads it itself as before.
 */
export function compilePgliteWasm(): Promise<WasmModule | undefined> {
  tierUpOnlyHotWasm(); // before the module exists
  compiling ??= readFile(PGLITE_WASM).then(
    (bytes) => wasm.compile(bytes),
    () => undefined,
  );
  return compiling;
}

/**
 * V8 runs WebAssembly first as baseline code and recompiles a function with its optimising compiler once it has
 * run for a "tiering budget" (default 1,800,000). PostgreSQL's start-up runs much of its code just long enough
 * for that: at the default, opening a store recompiled it on V8's background threads (≈ 0.5 s of CPU on a
 * 2-core machine during the start) and the optimised code and the compiler's memory stayed resident. Measured
 * with `order-desk start` (idle RSS, warm / first start, one run each): 100× 195–203 / 203–224 MB,
 * 300× 186–193 / 209–215 MB, 500× 179–182 / 183–189 MB, 1000× 163–166 / 172 MB; 500× takes 0.2–0.3 s less
 * CPU to /readyz than 100×.
 * 500× is used: below 200 MB with a margin. What runs on every request still reaches the optimising compiler
 * under sustained load; `npm run bench -- slack-ack webhooks`, PGlite, alternating runs at 100× / 1000× (which
 * bracket it): ack p99 1.31, 1.43 / 1.40, 1.33× the ack-only app, acks 0.74, 0.75 / 0.69, 0.68× its rate, ingest
 * 4,478, 5,069 / 4,348, 5,749 events/s. V8 reads the budget when an instance is created: it is set once, before
 * PGlite's first. (`setFlagsFromString` after start-up is outside what Node promises; this flag's effect is
 * measured above.)
 */
const WASM_TIERING_BUDGET = 900_000_000;
let tieringSet = false;
function tierUpOnlyHotWasm(): void {
  if (tieringSet) return;
  tieringSet = true;
  v8.setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
}

/** Unpacks the prebuilt data directory into `pgDir` when it suits this install; says why not otherwise. */
export async function createFromTemplate(template: string, pgDir: string, logger: Logger): Promise<boolean> {
  const check = checkDataTemplate(template);
  if (!check.usable) {
    logger.info(
      { reason: check.reason },
      "creating the embedded store with initdb (a few seconds): no usable prebuilt data directory",
    );
    return false;
  }
  const started = performance.now();
  try {
    const { bytesWritten } = await restoreDataTemplate(template, pgDir);
    logger.info(
      { ms: Math.round(performance.now() - started), bytesWritten },
      "embedded store created from the prebuilt data directory",
    );
    return true;
  } catch (error) {
    logger.warn(
      { err: error, template },
      "the prebuilt data directory could not be unpacked; creating the store with initdb",
    );
    return false;
  }
}
