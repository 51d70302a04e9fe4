// `order-desk start` on Linux with glibc runs with glibc's malloc trim threshold fixed at its default (128 kB).
//
// Why: V8 recompiles the hottest functions of PGlite's WebAssembly with its optimising compiler, on a background
// thread. PostgreSQL's SQL parser is one of them (reached within the first seconds: pg-boss 12's statements are long),
// and compiling it takes ≈ 600 MB of short-lived compiler memory for a second or two. glibc raises its thresholds for
// giving memory back whenever the process frees a large block (it does at start), after which ≈ 40-50 MB of that
// compiler memory stayed resident for the life of the process: a quarter of an idle embedded store's RSS. With the
// threshold set, nothing of it stays (docs/store.md, "Start-up and memory of the embedded store").
//
// glibc reads the setting only when the process starts, from GLIBC_TUNABLES, so the command replaces itself once with
// the same arguments and the variable set (`process.execve`: the same process id, nothing started yet). Not done
// where glibc is absent, where the variable (or a MALLOC_* variable) already says something about malloc, or where
// Node has no `process.execve`. The production image sets the variable itself (Dockerfile), so it starts once.

export const MALLOC_TUNABLE = "glibc.malloc.trim_threshold=131072";

/** glibc's older variables for the same thresholds: one set by the operator wins. */
const THRESHOLD_VARIABLES = [
  "MALLOC_TRIM_THRESHOLD_",
  "MALLOC_MMAP_THRESHOLD_",
  "MALLOC_TOP_PAD_",
  "MALLOC_MMAP_MAX_",
];

/**
 * The environment to run `start` with, or null to run as is.
 * @param {{ platform: string, env: Record<string, string | undefined>, glibc: boolean, canExec: boolean }} host
 * @returns {Record<string, string | undefined> | null}
 */
export function mallocTrimEnv({ platform, env, glibc, canExec }) {
  if (platform !== "linux" || !glibc || !canExec) return null;
  const tunables = env.GLIBC_TUNABLES ?? "";
  if (tunables.includes("glibc.malloc.")) return null;
  if (THRESHOLD_VARIABLES.some((name) => env[name] !== undefined)) return null;
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${MALLOC_TUNABLE}` : MALLOC_TUNABLE };
}

/** Whether this Node runs on glibc (its process report names the version; musl's does not). */
function hasGlibc() {
  try {
    process.report.excludeNetwork = true;
    return typeof process.report.getReport().header?.glibcVersionRuntime === "string";
  } catch {
    return false;
  }
}

/** Replaces this process with itself under `mallocTrimEnv`'s environment; returns when that does not apply. */
export function execWithMallocTrim() {
  const canExec = typeof process.execve === "function";
  const env = mallocTrimEnv({
    platform: process.platform,
    env: process.env,
    glibc: process.platform === "linux" && canExec && hasGlibc(),
    canExec,
  });
  if (!env) return;
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], env);
  } catch {
    // Refused (a sandbox, a seccomp profile): run as is, with glibc's default thresholds.
  }
}
