/** `order-desk migrate`: the database brought up to this version without starting Order Desk. */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMigrate } from "../../src/cli/migrate.ts";
import { createJobs } from "../../src/jobs/index.ts";
import { checkMigrations } from "../../src/ops/checks/database.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { defaultBackend, openTestStore } from "../helpers/db.ts";

async function migrate(argv: string[], env: Record<string, string>, store?: Store) {
  let out = "";
  let err = "";
  const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } };
  const code = await runMigrate(argv, env, io, store ? { store } : {});
  return { code, out, err };
}

const workDir = mkdtempSync(join(tmpdir(), "order-desk-migrate-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe("order-desk migrate", () => {
  it("applies every migration and the job queue's schema to an empty database, then finds nothing to apply", async () => {
    const empty =
      defaultBackend() === "postgres"
        ? await openTestStore("postgres", { migrate: false })
        : await openStore({ dataDir: "memory://", migrate: false });
    try {
      const first = await migrate([], {}, empty);
      expect(first).toMatchObject({ code: 0, err: "" });
      expect(first.out).toMatch(/^Applied \d+ migrations: 001_\S+, .*the job queue's schema is up to date/);
      expect(await checkMigrations(empty)).toMatchObject({ status: "ok" });
      // The queue's tables exist: the operators' commands can read them.
      await expect(createJobs({ store: empty }).listFailed({ limit: 1 })).resolves.toEqual([]);

      const second = await migrate([], {}, empty);
      expect(second.code).toBe(0);
      expect(second.out).toMatch(/^Nothing to apply: all (\d+) migrations were applied already/);
    } finally {
      await empty.close();
    }
  });

  it("creates and migrates the embedded store in ORDER_DESK_DATA_DIR when DATABASE_URL is not set", async () => {
    const dataDir = join(workDir, "data");
    const { code, out } = await migrate([], { ORDER_DESK_DATA_DIR: dataDir });
    expect(code).toBe(0);
    expect(out).toMatch(/^(Created a new store with all|Applied) \d+ migrations/);
    expect(out).toContain(`the embedded store in ${dataDir}`);
    expect(existsSync(dataDir)).toBe(true);
    const store = await openStore({ dataDir, migrate: false });
    try {
      expect(await checkMigrations(store)).toMatchObject({ status: "ok" });
    } finally {
      await store.close();
    }
  });

  it("answers --help, and exits 2 naming unknown flags or a bad DATABASE_URL", async () => {
    const help = await migrate(["--help"], {});
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: order-desk migrate/);
    const unknown = await migrate(["--dry-run", "--force"], {});
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("unknown options --dry-run, --force");
    const badUrl = await migrate([], { DATABASE_URL: "mysql://x" });
    expect(badUrl.code).toBe(2);
    expect(badUrl.err).toContain("DATABASE_URL: must be a postgres:// connection string");
  });
});
