import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { extractTar } from "../../src/store/tar.ts";
import { tarOf } from "./support/tar.ts";

const root = mkdtempSync(join(tmpdir(), "od-tar-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("extracting a data directory archive", () => {
  it("writes directories and files, and leaves blocks of zeros as holes that read back as zeros", () => {
    const dir = mkdtempSync(join(root, "ok-"));
    const wal = Buffer.alloc(16 * 8192);
    wal.write("checkpoint", 8192 * 2);
    const summary = extractTar(
      tarOf([
        { name: "/pg_wal", dir: true },
        { name: "/pg_wal/000000010000000000000001", data: wal },
        { name: "/PG_VERSION", data: Buffer.from("17\n") },
      ]),
      dir,
    );
    expect(readdirSync(dir).sort()).toEqual(["PG_VERSION", "pg_wal"]);
    expect(readFileSync(join(dir, "PG_VERSION"), "utf8")).toBe("17\n");
    expect(readFileSync(join(dir, "pg_wal", "000000010000000000000001")).equals(wal)).toBe(true);
    expect(summary).toEqual({ files: 2, bytesWritten: 8192 + 3 });
    expect(statSync(join(dir, "pg_wal")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "PG_VERSION")).mode & 0o777).toBe(0o600);
  });

  it("refuses an entry that would land outside the directory", () => {
    const dir = mkdtempSync(join(root, "escape-"));
    expect(() => extractTar(tarOf([{ name: "../escaped", data: Buffer.from("x") }]), dir)).toThrow(
      /outside the directory/,
    );
    expect(() => extractTar(tarOf([{ name: "/a/../../escaped", data: Buffer.from("x") }]), dir)).toThrow(
      /outside the directory/,
    );
  });

  it("refuses links and an archive that is cut short", () => {
    const dir = mkdtempSync(join(root, "bad-"));
    expect(() => extractTar(tarOf([{ name: "link", data: Buffer.alloc(0), type: "2" }]), dir)).toThrow(
      /only files and directories/,
    );
    const whole = tarOf([{ name: "big", data: Buffer.alloc(4096, 1) }]);
    expect(() => extractTar(whole.subarray(0, 2048), mkdtempSync(join(root, "cut-")))).toThrow(/cut short/);
  });
});
