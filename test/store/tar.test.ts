import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { extractTar } from "../../src/store/pglite/tar.ts";
import { tarOf } from "./support/tar.ts";

const root = mkdtempSync(join(tmpdir(), "od-tar-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The archive in pieces of one size, as a decompressing stream hands them over: headers and data split anywhere. */
function* piecesOf(bytes: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe("extracting a data directory archive", () => {
  it("writes directories and files, and leaves blocks of zeros as holes that read back as zeros", async () => {
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
    const summary = await extractTar(piecesOf(archive, 1000), dir);
    expect(readdirSync(dir).sort()).toEqual(["PG_VERSION", "global", "pg_wal"]);
    expect(readFileSync(join(dir, "PG_VERSION"), "utf8")).toBe("17\n");
    expect(readFileSync(join(dir, "pg_wal", "000000010000000000000001")).equals(wal)).toBe(true);
    expect(readFileSync(join(dir, "global", "empty")).length).toBe(0);
    expect(summary).toEqual({ files: 3, bytesWritten: 8192 + 3 });
    expect(statSync(join(dir, "pg_wal")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "PG_VERSION")).mode & 0o777).toBe(0o600);
  });

  it("gives the same files whatever sizes the archive arrives in", async () => {
    const data = Buffer.alloc(300 * 1024, 7);
    data.fill(0, 8192, 3 * 8192);
    const archive = tarOf([
      { name: "a", data },
      { name: "b", data: Buffer.from("bee") },
    ]);
    for (const size of [511, 512, 513, 4096, 100_000, archive.length]) {
      const dir = mkdtempSync(join(root, `sizes-${size}-`));
      await extractTar(piecesOf(archive, size), dir);
      expect(readFileSync(join(dir, "a")).equals(data)).toBe(true);
      expect(readFileSync(join(dir, "b"), "utf8")).toBe("bee");
    }
  });

  it("refuses an entry that would land outside the directory", async () => {
    const dir = mkdtempSync(join(root, "escape-"));
    const archive = tarOf([
      { name: "fine", data: Buffer.from("x") },
      { name: "../escaped", data: Buffer.from("x") },
    ]);
    await expect(extractTar([archive], dir)).rejects.toThrow(/outside the directory/);
    await expect(
      extractTar([tarOf([{ name: "/a/../../escaped", data: Buffer.from("x") }])], dir),
    ).rejects.toThrow(/outside the directory/);
    expect(existsSync(join(root, "escaped"))).toBe(false);
  });

  it("refuses links and an archive that is cut short", async () => {
    const dir = mkdtempSync(join(root, "bad-"));
    await expect(
      extractTar([tarOf([{ name: "link", data: Buffer.alloc(0), type: "2" }])], dir),
    ).rejects.toThrow(/only files and directories/);
    const whole = tarOf([{ name: "big", data: Buffer.alloc(4096, 1) }]);
    await expect(extractTar([whole.subarray(0, 2048)], mkdtempSync(join(root, "cut-")))).rejects.toThrow(
      /cut short/,
    );
    await expect(
      extractTar([whole.subarray(0, 512 + 4096)], mkdtempSync(join(root, "unended-"))),
    ).rejects.toThrow(/end-of-archive/);
  });
});
