/**
 * The prebuilt data directory's archive format: ustar, directories and regular files only.
 *
 * - `packTar(dir)` archives a data directory (the template builder, at build time).
 * - `extractTar(archive, dir)` writes an archive's entries into a directory: only what a data directory holds is
 *   accepted (directories and regular files, relative names without `..`).
 *
 * Extraction is synchronous over the whole archive in memory. It runs in the unpacker's own process
 * (unpack-main.ts), which exits when it is done and gives its memory back, so neither the 40 MB of tar nor
 * blocking its event loop costs the app anything; and a data directory is ≈ 1,000 small files, for which the
 * promise API's round trips through libuv's thread pool (open, write, truncate, close: each a hop) cost
 * more CPU than the writes themselves (measured, the same archive: 0.70 s of CPU streamed and 16 files at a
 * time, 0.47 s written one by one with the synchronous calls; the wall time follows the CPU).
 *
 * Sparse: 8 KiB pages that are all zeros are not written; the file is extended over them, so they read as zeros
 * and take no disk space. A data directory's WAL segment is 16 MB of which a prebuilt store uses a few kilobytes:
 * written whole it was about half of the bytes a first start wrote.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import { isAbsolute, join, normalize, relative, sep } from "node:path";

const BLOCK = 512;
/** Holes are made of whole pages: a page with data at both ends and zeros between is written in one piece. */
const PAGE = 8192;
const ZEROS = Buffer.alloc(PAGE);

export class TarFormatError extends Error {
  constructor(message: string) {
    super(`not a data directory archive: ${message}`);
    this.name = "TarFormatError";
  }
}

export interface ExtractSummary {
  files: number;
  /** Bytes written to disk (zero pages skipped). */
  bytesWritten: number;
}

/**
 * Extracts `archive` into `dir`, which must exist: directories get 0700, files 0600. `beforeFile` runs before
 * each file is created (the unpacker checks there that the process that started it is still there). On a failure
 * the file being written is closed before it is thrown; the caller removes `dir`.
 */
export function extractTar(archive: Buffer, dir: string, beforeFile: () => void = () => {}): ExtractSummary {
  let files = 0;
  let bytesWritten = 0;
  let at = 0;
  for (;;) {
    if (at + BLOCK > archive.length) throw new TarFormatError("no end-of-archive marker");
    const entry = readHeader(archive.subarray(at, at + BLOCK));
    at += BLOCK;
    if (entry === null) return { files, bytesWritten };
    if (entry.type === "dir") {
      if (entry.name) mkdirSync(join(dir, entry.name), { recursive: true, mode: 0o700 });
      continue;
    }
    if (at + entry.size > archive.length) throw new TarFormatError(`${entry.name} is cut short`);
    beforeFile();
    bytesWritten += writeFileSparse(join(dir, entry.name), archive.subarray(at, at + entry.size));
    files++;
    at += Math.ceil(entry.size / BLOCK) * BLOCK;
  }
}

/** Writes `data` to a new file at `path`, skipping its all-zero pages; returns the bytes written. */
function writeFileSparse(path: string, data: Buffer): number {
  const fd = openSync(path, "wx", 0o600);
  try {
    let written = 0;
    let end = 0;
    let runStart = -1;
    for (let at = 0; ; at += PAGE) {
      const pageEnd = Math.min(at + PAGE, data.length);
      const zero = at >= data.length || data.subarray(at, pageEnd).equals(ZEROS.subarray(0, pageEnd - at));
      if (!zero) {
        if (runStart < 0) runStart = at;
        continue;
      }
      if (runStart >= 0) {
        const runEnd = Math.min(at, data.length);
        for (let from = runStart; from < runEnd; ) from += writeSync(fd, data, from, runEnd - from, from);
        written += runEnd - runStart;
        end = runEnd;
        runStart = -1;
      }
      if (at >= data.length) break;
    }
    // Holes at the end: the file is extended to its size without writing them.
    if (end < data.length) ftruncateSync(fd, data.length);
    return written;
  } finally {
    closeSync(fd);
  }
}

/**
 * A ustar archive of the directory `dir` (directories and regular files; anything else is refused), with the
 * names rooted at `/` as PGlite's `dumpDataDir` writes them, in a stable order.
 */
export function packTar(dir: string): Buffer {
  const parts: Buffer[] = [];
  const walk = (at: string) => {
    const entries = readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = join(at, entry.name);
      const name = `/${relative(dir, path).split(sep).join("/")}`;
      if (entry.isDirectory()) {
        parts.push(header(name, 0, "5"));
        walk(path);
      } else if (entry.isFile()) {
        const data = readFileSync(path);
        parts.push(
          header(name, data.length, "0"),
          data,
          Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK),
        );
      } else {
        throw new TarFormatError(`${name} is neither a file nor a directory`);
      }
    }
  };
  walk(dir);
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

function header(name: string, size: number, type: "0" | "5"): Buffer {
  if (Buffer.byteLength(name) > 100) throw new TarFormatError(`${name} is longer than 100 bytes`);
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100, "utf8");
  block.write(type === "5" ? "0000700\0" : "0000600\0", 100);
  block.write("0000000\0", 108);
  block.write("0000000\0", 116);
  block.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  block.write("00000000000\0", 136);
  block.write(type, 156);
  block.write("ustar\0", 257);
  block.write("00", 263);
  block.write("        ", 148);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return block;
}

type Entry = { type: "dir"; name: string } | { type: "file"; name: string; size: number };

/** The entry a header describes, checked; `null` for the end-of-archive block. */
function readHeader(header: Buffer): Entry | null {
  if (header[0] === 0) return null;
  const prefix = field(header, 345, 155);
  const name = safeName(prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
  const size = Number.parseInt(field(header, 124, 12).trim() || "0", 8);
  const type = String.fromCharCode(header[156] ?? 0);
  if (!Number.isSafeInteger(size) || size < 0) throw new TarFormatError(`bad size for ${name}`);
  if (type === "5") return { type: "dir", name };
  if (type !== "0" && type !== "\0") {
    throw new TarFormatError(`entry ${name} has type ${JSON.stringify(type)}; only files and directories`);
  }
  if (!name) throw new TarFormatError("a file without a name");
  return { type: "file", name, size };
}

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString("utf8");
}

/** The entry's path relative to the target ("" for the root itself); refuses anything that would leave it. */
function safeName(name: string): string {
  const relativeName = name.replace(/^\/+/, "");
  if (relativeName === "" || relativeName === ".") return "";
  const normalized = normalize(relativeName);
  if (isAbsolute(normalized) || normalized === ".." || normalized.startsWith(`..${sep}`)) {
    throw new TarFormatError(`entry ${JSON.stringify(name)} points outside the directory`);
  }
  return normalized;
}
