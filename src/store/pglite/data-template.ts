/**
 * The embedded store's prebuilt data directory: `npm run build` creates an empty store once (PGlite's initdb,
 * our migrations, pg-boss's schema and queues) and keeps it as `dist/store-template/pgdata.tar.gz` with a
 * manifest naming what it was built for. On a first start (no `<dataDir>/pgdata` yet) the store is unpacked
 * from it instead of running initdb: initdb took 3–6 s, and the WebAssembly memory it grew was never given
 * back (a first start idled at 830 MB against 390 MB after a restart).
 *
 * The template is used only when its manifest matches this install: the same PGlite (its data files must be
 * readable by this PostgreSQL build), the same pg-boss (whose schema it holds) and the same migration files.
 * Anything else, a missing template included, falls back to initdb, as a store was always created before.
 * The builder is `data-template-build.ts`.
 */

import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMigrations } from "../migrate.ts";
import type { ExtractSummary } from "./tar.ts";

/** Where `npm run build` writes the template (the same path from `src/store/pglite/` and `dist/store/pglite/`). */
export const BUILT_DATA_TEMPLATE_DIR = fileURLToPath(
  new URL("../../../dist/store-template/", import.meta.url),
);

export const TEMPLATE_ARCHIVE = "pgdata.tar.gz";
/** Directory inside `dataDir` holding PGlite's files; the lock file sits beside it. */
export const PGLITE_SUBDIR = "pgdata";
export const TEMPLATE_MANIFEST = "manifest.json";

/** What a template was built for; a template is used only when this equals the running install's. */
export interface DataTemplateIdentity {
  /**
   * 2: the data directory of a store shut down cleanly, opened as a restart opens one. (1 was PGlite's dump of a
   * running store, which PostgreSQL opened with crash recovery: ≈ 0.1 s more of a first start.)
   */
  format: 2;
  pglite: string;
  pgBoss: string;
  migrations: Array<{ name: string; checksum: string }>;
}

export interface DataTemplateManifest extends DataTemplateIdentity {
  builtAt: string;
}

export function currentTemplateIdentity(): DataTemplateIdentity {
  return {
    format: 2,
    pglite: packageVersion("@electric-sql/pglite"),
    pgBoss: packageVersion("pg-boss"),
    migrations: loadMigrations().map(({ name, checksum }) => ({ name, checksum })),
  };
}

export type TemplateCheck = { usable: true } | { usable: false; reason: string };

/** Whether the template in `dir` can create a store for this install, and if not, why. */
export function checkDataTemplate(dir: string): TemplateCheck {
  let manifest: Partial<DataTemplateManifest>;
  try {
    manifest = JSON.parse(readFileSync(join(dir, TEMPLATE_MANIFEST), "utf8"));
    statSync(join(dir, TEMPLATE_ARCHIVE));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { usable: false, reason: missing ? `no prebuilt data directory in ${dir}` : String(error) };
  }
  const current = currentTemplateIdentity();
  if (manifest.format !== current.format) return { usable: false, reason: "template format differs" };
  if (manifest.pglite !== current.pglite)
    return { usable: false, reason: `built for PGlite ${manifest.pglite}, this is ${current.pglite}` };
  if (manifest.pgBoss !== current.pgBoss)
    return { usable: false, reason: `built for pg-boss ${manifest.pgBoss}, this is ${current.pgBoss}` };
  if (JSON.stringify(manifest.migrations) !== JSON.stringify(current.migrations))
    return { usable: false, reason: "built with other migration files (run npm run build)" };
  return { usable: true };
}

/** A store directory that has to be created: absent, or an empty directory (e.g. a volume's mount point). */
export function needsCreating(pgDir: string): boolean {
  if (!existsSync(pgDir)) return true;
  return statSync(pgDir).isDirectory() && readdirSync(pgDir).length === 0;
}

/**
 * Unpacks the template into `pgDir`. It is written beside it first (`pgdata.partial`) and renamed into place
 * when complete, so a crash part-way leaves no half-made store: the next start removes the partial one and
 * unpacks again.
 *
 * The unpacking runs in a child process (`unpack-main.ts`): the buffers and garbage of decompressing 40 MB
 * and writing ≈ 1,000 files stayed resident in the process that did it (a first start idled ≈ 45 MB above a
 * restart, of a 200 MB budget); a child's memory goes back to the system when it exits. It stops if we exit
 * first. Only this process renames the result into place.
 */
export async function restoreDataTemplate(dir: string, pgDir: string): Promise<ExtractSummary> {
  const partial = `${pgDir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  try {
    const summary = await runUnpacker(join(dir, TEMPLATE_ARCHIVE), partial);
    if (existsSync(pgDir)) rmSync(pgDir, { recursive: true }); // empty: needsCreating said so
    renameSync(partial, pgDir);
    return summary;
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

const UNPACKER = fileURLToPath(
  new URL(`./unpack-main${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

function runUnpacker(archive: string, partial: string): Promise<ExtractSummary> {
  // From the sources (tests, or a stale build) the child needs the TypeScript loader too.
  const loader = UNPACKER.endsWith(".ts") ? ["--import", "tsx"] : [];
  const child = spawn(process.execPath, [...loader, UNPACKER, archive, partial], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-2000);
  });
  return new Promise((resolveSummary, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) {
        try {
          resolveSummary(JSON.parse(out) as ExtractSummary);
          return;
        } catch {
          // reported below
        }
      }
      reject(
        new Error(
          `unpacking the prebuilt data directory failed (${signal ?? `exit ${code}`}): ${err.trim()}`,
        ),
      );
    });
  });
}

const require = createRequire(import.meta.url);

/** The installed version of `name` (packages do not all export their package.json, so it is found on disk). */
export function packageVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the version of ${name}`);
    dir = parent;
  }
}
