import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.ts";
import { MigrationChecksumError, MigrationFailedError } from "../../src/store/errors.ts";
import { loadMigrations, runMigrations } from "../../src/store/migrate.ts";
import { openTestStore, TEST_BACKENDS, testDatabaseUrl } from "../helpers/db.ts";

describe("loadMigrations", () => {
  it("orders the shipped migrations by name and checksums them with normalised line endings", () => {
    const dir = mkdtempSync(join(tmpdir(), "od-migrations-"));
    try {
      writeFileSync(join(dir, "002_b.sql"), "SELECT 2;\r\n");
      writeFileSync(join(dir, "001_a.sql"), "SELECT 1;\n");
      writeFileSync(join(dir, "README.md"), "not a migration");
      const [a, b] = loadMigrations(dir);
      expect([a?.name, b?.name]).toEqual(["001_a.sql", "002_b.sql"]);
      writeFileSync(join(dir, "002_b.sql"), "SELECT 2;\n");
      expect(loadMigrations(dir)[1]?.checksum).toBe(b?.checksum);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(loadMigrations()[0]?.name).toBe("001_initial.sql");
  });
});

describe.each(TEST_BACKENDS)("migrations on %s", (backend) => {
  // Migrates a scratch directory of files, not the shipped ones (those are covered by every other test).
  let store: Store;
  let dir: string;

  beforeAll(async () => {
    store = await openTestStore(backend, { migrate: false });
    dir = mkdtempSync(join(tmpdir(), "od-migrations-"));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("applies pending files once, records them, and applies nothing on a second start", async () => {
    writeFileSync(
      join(dir, "001_widgets.sql"),
      "CREATE TABLE widgets (id int PRIMARY KEY);\nINSERT INTO widgets VALUES (1);",
    );
    expect(await runMigrations(store, { dir })).toEqual(["001_widgets.sql"]);
    expect(await runMigrations(store, { dir })).toEqual([]);
    // (The PGlite test template already holds 001_initial.sql: look at this directory's files only.)
    const { rows } = await store.query(
      "SELECT name, checksum FROM schema_migrations WHERE name LIKE '%widgets%'",
    );
    expect(rows).toEqual([{ name: "001_widgets.sql", checksum: loadMigrations(dir)[0]?.checksum }]);
    expect((await store.query("SELECT count(*)::int AS n FROM widgets")).rows[0]?.n).toBe(1);
  });

  it("applies each file exactly once when several starts race", async () => {
    writeFileSync(join(dir, "002_gadgets.sql"), "CREATE TABLE gadgets (id int PRIMARY KEY);");
    // A second connection to the same database races the first (on PGlite the one connection serialises them).
    const other =
      backend === "postgres"
        ? await openStore({ databaseUrl: testDatabaseUrl(), schema: store.schema!, migrate: false })
        : store;
    try {
      const results = await Promise.all([runMigrations(store, { dir }), runMigrations(other, { dir })]);
      expect(results.flat()).toEqual(["002_gadgets.sql"]);
    } finally {
      if (other !== store) await other.close();
    }
  });

  it("rolls back a failing migration entirely and does not record it", async () => {
    writeFileSync(join(dir, "003_broken.sql"), "CREATE TABLE half_done (id int);\nSELECT 1 / 0;");
    const error = await runMigrations(store, { dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationFailedError);
    expect((error as MigrationFailedError).message).toContain("003_broken.sql");
    expect((await store.query("SELECT to_regclass('half_done') AS t")).rows[0]?.t).toBeNull();
    const { rows } = await store.query("SELECT 1 FROM schema_migrations WHERE name = '003_broken.sql'");
    expect(rows).toEqual([]);
    rmSync(join(dir, "003_broken.sql"));
  });

  it("refuses to start when an applied migration was edited", async () => {
    writeFileSync(join(dir, "001_widgets.sql"), "CREATE TABLE widgets (id bigint PRIMARY KEY);");
    const error = await runMigrations(store, { dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationChecksumError);
    expect((error as Error).message).toMatch(/001_widgets\.sql.*never edited/);
  });
});
