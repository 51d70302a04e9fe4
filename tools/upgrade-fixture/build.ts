/**
 * Builds the upgrade fixtures (test/reliability/fixtures/upgrade/) with a PREVIOUS RELEASE's code: checks the
 * revision out into a temporary git worktree, installs it (`npm ci`), copies this folder's scenario into it, and
 * runs the scenario there once per store and stop: PGlite and PostgreSQL, each stopped with SIGTERM and with
 * SIGKILL. The PostgreSQL runs need a server (`--database-url`, default `DATABASE_URL`'s server): each gets a
 * database of its own, dumped by the scenario and dropped afterwards. docs/store.md, "How the upgrade is tested".
 *
 *   node --import tsx tools/upgrade-fixture/build.ts [--revision 6edc1f6] [--only pglite-sigterm,…]
 *     [--database-url postgres://postgres@127.0.0.1:5432/test] [--out test/reliability/fixtures/upgrade]
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";

/** The commit of release 0.1.0. */
const DEFAULT_REVISION = "6edc1f6";
const VARIANTS = ["pglite-sigterm", "pglite-sigkill", "postgres-sigterm", "postgres-sigkill"] as const;

const ROOT = resolve(new URL("../..", import.meta.url).pathname);
const { values } = parseArgs({
  options: {
    revision: { type: "string", default: DEFAULT_REVISION },
    only: { type: "string" },
    "database-url": { type: "string" },
    out: { type: "string", default: join(ROOT, "test/reliability/fixtures/upgrade") },
  },
});
// The one variable this tool reads, as the test suite does: where the PostgreSQL server is.
const serverUrl = values["database-url"] ?? process.env.DATABASE_URL;
const variants = values.only ? values.only.split(",") : [...VARIANTS];
for (const v of variants) {
  if (!(VARIANTS as readonly string[]).includes(v))
    throw new Error(`unknown variant ${v}: one of ${VARIANTS}`);
  if (v.startsWith("postgres") && !serverUrl) throw new Error(`${v} needs --database-url or DATABASE_URL`);
}

const run = (cmd: string, argv: string[], cwd: string) =>
  execFileSync(cmd, argv, { cwd, stdio: ["ignore", "inherit", "inherit"] });

async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const name = `od_upgrade_${randomBytes(4).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(serverUrl!);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function main(): Promise<void> {
  const revision = execFileSync("git", ["rev-parse", `${values.revision}^{commit}`], { cwd: ROOT })
    .toString()
    .trim();
  const parent = await mkdtemp(join(tmpdir(), "od-upgrade-build-"));
  const checkout = join(parent, "checkout");
  run("git", ["worktree", "add", "--detach", checkout, revision], ROOT);
  try {
    console.log(`building with ${revision} in ${checkout}: npm ci`);
    run("npm", ["ci", "--no-audit", "--no-fund"], checkout);
    await cp(join(ROOT, "tools/upgrade-fixture"), join(checkout, "tools/upgrade-fixture"), {
      recursive: true,
    });
    for (const variant of variants) {
      const [store, stop] = variant.split("-") as [string, string];
      const out = join(values.out, variant);
      await rm(out, { recursive: true, force: true });
      const scenario = (databaseUrl?: string) => {
        console.log(`${variant}: running the scenario`);
        run(
          process.execPath,
          [
            "--import",
            "tsx",
            "tools/upgrade-fixture/scenario.ts",
            ...["--store", store, "--stop", stop, "--out", out, "--revision", revision],
            ...(databaseUrl ? ["--database-url", databaseUrl] : []),
          ],
          checkout,
        );
      };
      if (store === "postgres") await withDatabase(async (url) => scenario(url));
      else scenario();
    }
  } finally {
    run("git", ["worktree", "remove", "--force", checkout], ROOT);
    await rm(parent, { recursive: true, force: true });
  }
}

await main();
