import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.ts";
import { StoreLockedError } from "../../src/store/errors.ts";
import { loadMigrations } from "../../src/store/migrate.ts";
import { acquireDirLock, LOCK_FILE_NAME } from "../../src/store/pglite/lock.ts";
import { pgliteTemplate } from "../helpers/db.ts";

function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

function writeLock(dir: string, info: object): void {
  writeFileSync(join(dir, LOCK_FILE_NAME), JSON.stringify(info));
}

describe("lock file of the embedded store", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "od-lock-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a directory held by another live process, naming the directory and its pid", () => {
    const sub = mkdtempSync(join(dir, "live-"));
    writeLock(sub, { pid: process.ppid, host: hostname(), startedAt: "2024-01-01T00:00:00.000Z" });
    const error = (() => {
      try {
        acquireDirLock(sub);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StoreLockedError);
    expect((error as StoreLockedError).holderPid).toBe(process.ppid);
    expect((error as Error).message).toContain(sub);
    expect((error as Error).message).toContain(`process ${process.ppid}`);
    expect((error as Error).message).toContain("DATABASE_URL");
  });

  it("takes over a lock left by a process that died, and removes its own on release", () => {
    const sub = mkdtempSync(join(dir, "stale-"));
    writeLock(sub, { pid: deadPid(), host: hostname(), startedAt: "2024-01-01T00:00:00.000Z" });
    const lock = acquireDirLock(sub);
    expect(JSON.parse(readFileSync(lock.path, "utf8")).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  it("takes over an unreadable lock once it is old enough to be a torn write from a crash", () => {
    const sub = mkdtempSync(join(dir, "torn-"));
    writeFileSync(join(sub, LOCK_FILE_NAME), "{");
    expect(() => acquireDirLock(sub)).toThrow(StoreLockedError);
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(sub, LOCK_FILE_NAME), old, old);
    acquireDirLock(sub).release();
  });

  it("refuses a lock written on another host rather than guess whether it is alive", () => {
    const sub = mkdtempSync(join(dir, "host-"));
    writeLock(sub, { pid: 1, host: "some-other-host", startedAt: "2024-01-01T00:00:00.000Z" });
    expect(() => acquireDirLock(sub)).toThrow(/another host/);
  });

  it("locks an opened store's directory until it is closed, then reopens it without migrating again", async () => {
    const sub = mkdtempSync(join(dir, "store-"));
    const first = await openStore({ dataDir: sub, pgliteTemplate: await pgliteTemplate() });
    await first.query("INSERT INTO document_sequences (prefix, value) VALUES ('KEEP', 7)");
    await expect(openStore({ dataDir: sub })).rejects.toThrow(
      /in use by process \d+ .*already open in this process/,
    );
    await first.close();
    expect(existsSync(join(sub, LOCK_FILE_NAME))).toBe(false);

    const second = await openStore({ dataDir: sub });
    try {
      expect(
        (await second.query("SELECT value FROM document_sequences WHERE prefix = 'KEEP'")).rows[0]?.value,
      ).toBe("7");
      expect((await second.query("SELECT count(*)::int AS n FROM schema_migrations")).rows[0]?.n).toBe(
        loadMigrations().length,
      );
    } finally {
      await second.close();
    }
  });

  it("gives a second process a clear error naming the directory and the holder's pid", async () => {
    const sub = mkdtempSync(join(dir, "second-"));
    const held = await openStore({ dataDir: sub, pgliteTemplate: await pgliteTemplate() });
    try {
      const db = fileURLToPath(new URL("../../src/store/db.ts", import.meta.url));
      const script = `import { openStore } from ${JSON.stringify(db)};
        openStore({ dataDir: ${JSON.stringify(sub)} }).then(
          () => process.exit(0),
          (e) => { console.error(e.code + ": " + e.message); process.exit(3); });`;
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const code = await new Promise((resolve) => child.on("exit", resolve));
      expect(code).toBe(3);
      expect(stderr).toContain(
        `STORE_LOCKED: The embedded store in ${sub} is in use by process ${process.pid}`,
      );
    } finally {
      await held.close();
    }
  });
});
