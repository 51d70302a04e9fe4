import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { extractTar, packTar } from "../../src/store/pglite/tar.ts";
import { tarOf } from "./support/tar.ts";

const root = mkdtempSync(join(tmpdir(), "od-tar-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("extracting a data directory archive", () => {
  it("writes directories and files, and leaves blocks of zeros as holes that read back as zeros", () => {
    const dir = mkdtempSync(join(root, "ok-"));
    const wal = Buffer.alloc(16 * 8192);
    wal.write("checkpoint", 8192 * 2);
    const archive = tarOf([
      { name: "/pg_wal", dir: true },
      { name: "/pg_wal/000000010000000000000001", data: wal },
      { name: "/global", dir: true },
      { name: "/global/empty", data: Buffer.alloc(0) },
      { name: "/PG_VERSION", data: Buffer.from("17\n") },
    ]);
    const summary = extractTar(archive, dir);
    expect(readdirSync(dir).sort()).toEqual(["PG_VERSION", "global", "pg_wal"]);
    expect(readFileSync(join(dir, "PG_VERSION"), "utf8")).toBe("17\n");
    expect(readFileSync(join(dir, "pg_wal", "000000010000000000000001")).equals(wal)).toBe(true);
    expect(readFileSync(join(dir, "global", "empty")).length).toBe(0);
    expect(summary).toEqual({ files: 3, bytesWritten: 8192 + 3 });
    expect(statSync(join(dir, "pg_wal")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "PG_VERSION")).mode & 0o777).toBe(0o600);
  });

  it("writes data around zero pages in one file whole, with the holes between", () => {
    const data = Buffer.alloc(40 * 8192, 7);
    data.fill(0, 8192, 3 * 8192);
    data.fill(0, 39 * 8192); // the last page: the file ends in a hole
    const dir = mkdtempSync(join(root, "holes-"));
    const summary = extractTar(tarOf([{ name: "a", data }]), dir);
    expect(readFileSync(join(dir, "a")).equals(data)).toBe(true);
    expect(summary.bytesWritten).toBe(data.length - 3 * 8192);
  });

  it("reads back what it packs: the names rooted at / as PGlite's dump has them, the same bytes", () => {
    const source = mkdtempSync(join(root, "pack-src-"));
    mkdirSync(join(source, "base", "5"), { recursive: true });
    mkdirSync(join(source, "pg_wal", "archive_status"), { recursive: true });
    const page = Buffer.alloc(2 * 8192);
    page.write("catalog", 8192);
    writeFileSync(join(source, "base", "5", "1259"), page);
    writeFileSync(join(source, "PG_VERSION"), "18\n");
    const archive = packTar(source);
    expect(archive.subarray(0, 100).toString("utf8").replace(/\0+$/, "")).toBe("/PG_VERSION");
    const dir = mkdtempSync(join(root, "pack-out-"));
    expect(extractTar(archive, dir)).toEqual({ files: 2, bytesWritten: 8192 + 3 });
    expect(readFileSync(join(dir, "base", "5", "1259")).equals(page)).toBe(true);
    expect(readFileSync(join(dir, "PG_VERSION"), "utf8")).toBe("18\n");
    expect(readdirSync(join(dir, "pg_wal"))).toEqual(["archive_status"]);
  });

  it("refuses an entry that would land outside the directory", () => {
    const dir = mkdtempSync(join(root, "escape-"));
    const archive = tarOf([
      { name: "fine", data: Buffer.from("x") },
      { name: "../escaped", data: Buffer.from("x") },
    ]);
    expect(() => extractTar(archive, dir)).toThrow(/outside the directory/);
    expect(() => extractTar(tarOf([{ name: "/a/../../escaped", data: Buffer.from("x") }]), dir)).toThrow(
      /outside the directory/,
    );
    expect(existsSync(join(root, "escaped"))).toBe(false);
  });

  it("refuses links and an archive that is cut short", () => {
    const dir = mkdtempSync(join(root, "bad-"));
    expect(() => extractTar(tarOf([{ name: "link", data: Buffer.alloc(0), type: "2" }]), dir)).toThrow(
      /only files and directories/,
    );
    const whole = tarOf([{ name: "big", data: Buffer.alloc(4096, 1) }]);
    expect(() => extractTar(whole.subarray(0, 2048), mkdtempSync(join(root, "cut-")))).toThrow(/cut short/);
    expect(() => extractTar(whole.subarray(0, 512 + 4096), mkdtempSync(join(root, "unended-")))).toThrow(
      /end-of-archive/,
    );
  });
});
