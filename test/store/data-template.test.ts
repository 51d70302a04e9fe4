/**
 * The embedded store's prebuilt data directory over a real PGlite: a first start unpacks it, and every case in
 * which it cannot be used (none built, built for another install, a damaged archive, a store already there)
 * ends in a working store all the same.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJobs, QUEUES } from "../../src/jobs/index.ts";
import { openStore, PGLITE_SUBDIR, type Store } from "../../src/store/db.ts";
import { loadMigrations } from "../../src/store/migrate.ts";
import {
  checkDataTemplate,
  currentTemplateIdentity,
  TEMPLATE_ARCHIVE,
  TEMPLATE_MANIFEST,
} from "../../src/store/pglite/data-template.ts";
import { buildDataTemplate } from "../../src/store/pglite/data-template-build.ts";
import { extractTar } from "../../src/store/pglite/tar.ts";
import { capturedLogger } from "../secrets/helpers.ts";
import { tarOf } from "./support/tar.ts";

const INITDB = "creating the embedded store with initdb (a few seconds): no usable prebuilt data directory";
const UNPACKED = "embedded store created from the prebuilt data directory";

let root: string;
let template: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "od-data-template-"));
  template = join(root, "template");
  // What `npm run build` does (src/cli/build-store-template.ts).
  await buildDataTemplate(template, {
    prepare: async (store) => {
      const jobs = createJobs({ store });
      await jobs.start();
      await jobs.stop({ graceMs: 0 });
    },
  });
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the built template, to damage or edit without touching the others' copy. */
function templateCopy(name: string): string {
  const copy = join(root, name);
  cpSync(template, copy, { recursive: true });
  return copy;
}

async function openLogged(dataDir: string, pgliteDataTemplate: string | null) {
  const log = capturedLogger();
  const store = await openStore({ dataDir, pgliteDataTemplate, logger: log.logger });
  return { store, messages: () => log.lines().map((line) => String(line.msg)), log };
}

async function tablesOf(store: Store): Promise<{ migrations: string[]; queues: string[] }> {
  const migrations = await store.query<{ name: string }>("SELECT name FROM schema_migrations ORDER BY name");
  const queues = await store.query<{ name: string }>("SELECT name FROM pgboss.queue ORDER BY name");
  return { migrations: migrations.rows.map((r) => r.name), queues: queues.rows.map((r) => r.name) };
}

describe("prebuilt data directory of the embedded store", () => {
  it("records what it was built for: this PGlite, this pg-boss and these migration files", () => {
    const manifest = JSON.parse(readFileSync(join(template, TEMPLATE_MANIFEST), "utf8"));
    expect(manifest).toMatchObject(currentTemplateIdentity());
    expect(manifest.migrations.map((m: { name: string }) => m.name)).toEqual(
      loadMigrations().map((m) => m.name),
    );
    expect(checkDataTemplate(template)).toEqual({ usable: true });
  });

  it("holds a store that was shut down cleanly, so a first start opens it without crash recovery", () => {
    const unpacked = join(root, "inspect");
    mkdirSync(unpacked);
    extractTar(gunzipSync(readFileSync(join(template, TEMPLATE_ARCHIVE))), unpacked);
    expect(existsSync(join(unpacked, "postmaster.pid"))).toBe(false);
    // pg_control: the cluster state follows the system identifier and two version numbers (16 bytes);
    // 1 is DB_SHUTDOWNED (a dump of a running store says 6, DB_IN_PRODUCTION).
    expect(readFileSync(join(unpacked, "global", "pg_control")).readUInt32LE(16)).toBe(1);
    // Without the relations' free space and visibility maps, which PostgreSQL makes again when it needs them.
    const files = readdirSync(unpacked, { recursive: true, encoding: "utf8" });
    expect(files.filter((name) => /\d+_(fsm|vm)$/.test(name))).toEqual([]);
    expect(files.filter((name) => /^base\/\d+\/\d+$/.test(name)).length).toBeGreaterThan(100);
  });

  it("creates a new store by unpacking it: migrated, pg-boss's queues in place, and it keeps what is written", async () => {
    const dataDir = join(root, "fresh");
    const { store, messages } = await openLogged(dataDir, template);
    try {
      expect(messages()).toContain(UNPACKED);
      expect(messages()).not.toContain(INITDB);
      expect(await tablesOf(store)).toEqual({
        migrations: loadMigrations().map((m) => m.name),
        queues: Object.values(QUEUES).sort(),
      });
      // initdb's template databases are left out: the store is the app's one database.
      const { rows: databases } = await store.query<{ datname: string }>("SELECT datname FROM pg_database");
      expect(databases.map((r) => r.datname)).toEqual(["postgres"]);
      await store.query("INSERT INTO document_sequences (prefix, value) VALUES ('T-', 7)");
      // The maps left out of the template are made again when needed.
      await store.query("VACUUM document_sequences");
      const { rows: maps } = await store.query<{ vm: string }>(
        "SELECT pg_relation_size('document_sequences', 'vm') AS vm",
      );
      expect(Number(maps[0]?.vm)).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
    expect(existsSync(join(dataDir, `${PGLITE_SUBDIR}.partial`))).toBe(false);

    const again = await openLogged(dataDir, template);
    try {
      expect(again.messages()).not.toContain(UNPACKED);
      const { rows } = await again.store.query("SELECT value FROM document_sequences WHERE prefix = 'T-'");
      expect(rows[0]?.value).toBe("7");
      // The jobs start on it as on any store: the schema is pg-boss's own.
      const jobs = createJobs({ store: again.store });
      await jobs.start();
      expect(await jobs.send(QUEUES.postUpdate, { orderId: "o-1", eventId: "e-1" })).not.toBeNull();
      await jobs.stop({ graceMs: 0 });
    } finally {
      await again.store.close();
    }
  });

  it("also fills an empty directory, such as a freshly mounted volume", async () => {
    const dataDir = join(root, "volume");
    mkdirSync(join(dataDir, PGLITE_SUBDIR), { recursive: true });
    const { store, messages } = await openLogged(dataDir, template);
    await store.close();
    expect(messages()).toContain(UNPACKED);
  });

  it("removes the partial directory an interrupted unpack left and unpacks again", async () => {
    const dataDir = join(root, "interrupted");
    mkdirSync(join(dataDir, `${PGLITE_SUBDIR}.partial`, "base"), { recursive: true });
    writeFileSync(join(dataDir, `${PGLITE_SUBDIR}.partial`, "PG_VERSION"), "17\n");
    const { store, messages } = await openLogged(dataDir, template);
    try {
      expect(messages()).toContain(UNPACKED);
      expect((await tablesOf(store)).migrations).toHaveLength(loadMigrations().length);
    } finally {
      await store.close();
    }
    expect(existsSync(join(dataDir, `${PGLITE_SUBDIR}.partial`))).toBe(false);
  });

  it("says why it cannot be used when it was built for another install", () => {
    const other = templateCopy("other-pglite");
    const manifest = JSON.parse(readFileSync(join(other, TEMPLATE_MANIFEST), "utf8"));
    writeFileSync(join(other, TEMPLATE_MANIFEST), JSON.stringify({ ...manifest, pglite: "0.0.1" }));
    expect(checkDataTemplate(other)).toEqual({
      usable: false,
      reason: `built for PGlite 0.0.1, this is ${manifest.pglite}`,
    });

    const edited = templateCopy("other-migrations");
    writeFileSync(
      join(edited, TEMPLATE_MANIFEST),
      JSON.stringify({ ...manifest, migrations: manifest.migrations.slice(1) }),
    );
    expect(checkDataTemplate(edited)).toMatchObject({
      usable: false,
      reason: expect.stringContaining("migration"),
    });
    expect(checkDataTemplate(join(root, "none"))).toMatchObject({ usable: false });
  });
});

describe("without a usable prebuilt data directory", () => {
  it("creates the store with initdb when none was built, and says so", async () => {
    const dataDir = join(root, "no-template");
    const { store, messages, log } = await openLogged(dataDir, join(root, "not-built"));
    try {
      expect(messages()).toContain(INITDB);
      expect(log.text()).toContain("no prebuilt data directory");
      // pg-boss creates its schema when the jobs start, as it did before there was a template.
      const { rows: jobsSchema } = await store.query("SELECT to_regclass('pgboss.queue') AS t");
      expect(jobsSchema[0]?.t).toBeNull();
      const { rows } = await store.query<{ name: string }>(
        "SELECT name FROM schema_migrations ORDER BY name",
      );
      expect(rows.map((r) => r.name)).toEqual(loadMigrations().map((m) => m.name));
    } finally {
      await store.close();
    }
  }, 120_000);

  it("creates the store with initdb when the archive is damaged, leaving no partial directory", async () => {
    const damaged = templateCopy("damaged");
    truncateSync(join(damaged, TEMPLATE_ARCHIVE), 4096);
    const dataDir = join(root, "damaged-store");
    const { store, messages } = await openLogged(dataDir, damaged);
    try {
      expect(messages()).toContain(
        "the prebuilt data directory could not be unpacked; creating the store with initdb",
      );
      const { rows } = await store.query<{ name: string }>(
        "SELECT name FROM schema_migrations ORDER BY name",
      );
      expect(rows).toHaveLength(loadMigrations().length);
    } finally {
      await store.close();
    }
    expect(existsSync(join(dataDir, `${PGLITE_SUBDIR}.partial`))).toBe(false);
  }, 120_000);

  it("creates the store with initdb when the unpacked store does not start", async () => {
    const unstartable = templateCopy("unstartable");
    // A directory PostgreSQL will not open: it claims to be from a major version this build is not.
    const archive = tarOf([
      { name: "/global", dir: true },
      { name: "/PG_VERSION", data: Buffer.from("99\n") },
    ]);
    writeFileSync(join(unstartable, TEMPLATE_ARCHIVE), gzipSync(archive));
    const { store, messages } = await openLogged(join(root, "unstartable-store"), unstartable);
    try {
      expect(messages()).toContain(UNPACKED);
      expect(messages()).toContain(
        "the store made from the prebuilt data directory did not start; creating it with initdb",
      );
      const { rows } = await store.query<{ name: string }>(
        "SELECT name FROM schema_migrations ORDER BY name",
      );
      expect(rows).toHaveLength(loadMigrations().length);
    } finally {
      await store.close();
    }
  }, 120_000);
});
