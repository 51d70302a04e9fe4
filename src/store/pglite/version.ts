/**
 * The PGlite release this adapter was written for and checked against. `package.json` pins the same exact version
 * and `test/store/pglite-version.test.ts` fails, naming what to re-check, when the installed one differs.
 *
 * The adapter leans on more than PGlite's documented surface, so a new release is taken on purpose, never
 * by a range:
 * - node-postgres.ts, the wire-protocol shim: `execProtocolStream` with `throwOnError: false`, and PGlite's
 *   answers to it (the extra ReadyForQuery after an extended-protocol error outside a transaction is dropped
 *   there); test/store/db.test.ts exercises it;
 * - instance.ts: `postgresqlconf` (shared_buffers, wal_init_zero), the `pgliteWasmModule` option and where the
 *   package keeps `pglite.wasm`, and V8's tiering budget measured on this build's WebAssembly;
 * - the prebuilt data directory (data-template.ts): its manifest names the PGlite it was built with, and a
 *   template from another one is not used (initdb runs instead, seconds slower); `npm run build` makes a new one;
 *   the builder drops initdb's template databases and relies on PGlite shutting PostgreSQL down on close;
 * - open.ts: the fallback to initdb when a store made from the template does not start.
 */
export const PGLITE_ADAPTER_VERSION = "0.5.17";
