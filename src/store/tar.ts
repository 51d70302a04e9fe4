/**
 * Writes the entries of a tar archive (the ustar that PGlite's `dumpDataDir` makes) into a directory. Only
 * what a data directory holds is accepted: directories and regular files, relative names without `..`.
 *
 * Runs of 8 KiB blocks that are all zeros are not written; the file is extended over them instead, so they
 * read as zeros and take no disk space. A data directory's WAL segment is 16 MB of which a prebuilt store
 * uses a few kilobytes: written whole it was about half of the bytes a first start wrote.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, writeSync } from "node:fs";
import { isAbsolute, join, normalize, sep } from "node:path";

const HEADER = 512;
const BLOCK = 8192;
const ZEROS = Buffer.alloc(BLOCK);

export class TarFormatError extends Error {
  constructor(message: string) {
    super(`not a data directory archive: ${message}`);
    this.name = "TarFormatError";
  }
}

export interface ExtractSummary {
  files: number;
  /** Bytes written to disk (zero blocks skipped). */
  bytesWritten: number;
}

/** Extracts `tar` (the whole archive in memory) into `dir`, which must exist. Directories get 0700, files 0600. */
export function extractTar(tar: Uint8Array, dir: string): ExtractSummary {
  const bytes = Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength);
  let offset = 0;
  let files = 0;
  let bytesWritten = 0;
  while (offset + HEADER <= bytes.length) {
    const header = bytes.subarray(offset, offset + HEADER);
    if (header[0] === 0) return { files, bytesWritten }; // the end-of-archive blocks
    const prefix = field(header, 345, 155);
    const name = safeName(prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const size = Number.parseInt(field(header, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(header[156] ?? 0);
    if (!Number.isSafeInteger(size) || size < 0) throw new TarFormatError(`bad size for ${name}`);
    offset += HEADER;
    if (offset + size > bytes.length) throw new TarFormatError(`${name} is cut short`);
    if (type === "5") {
      if (name) mkdirSync(join(dir, name), { recursive: true, mode: 0o700 });
    } else if (type === "0" || type === "\0") {
      if (!name) throw new TarFormatError("a file without a name");
      bytesWritten += writeSparse(join(dir, name), bytes.subarray(offset, offset + size));
      files++;
    } else {
      throw new TarFormatError(`entry ${name} has type ${JSON.stringify(type)}; only files and directories`);
    }
    offset += Math.ceil(size / HEADER) * HEADER;
  }
  throw new TarFormatError("no end-of-archive marker");
}

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString("utf8");
}

/** The entry's path relative to the target ("" for the root itself); refuses anything that would leave it. */
function safeName(name: string): string {
  const relative = name.replace(/^\/+/, "");
  if (relative === "" || relative === ".") return "";
  const normalized = normalize(relative);
  if (isAbsolute(normalized) || normalized === ".." || normalized.startsWith(`..${sep}`)) {
    throw new TarFormatError(`entry ${JSON.stringify(name)} points outside the directory`);
  }
  return normalized;
}

function writeSparse(path: string, data: Buffer): number {
  const fd = openSync(path, "wx", 0o600);
  let written = 0;
  try {
    let runStart = -1;
    for (let at = 0; at < data.length; at += BLOCK) {
      const block = data.subarray(at, Math.min(at + BLOCK, data.length));
      if (!block.equals(ZEROS.subarray(0, block.length))) {
        if (runStart < 0) runStart = at;
        continue;
      }
      if (runStart >= 0) written += writeAll(fd, data, runStart, at);
      runStart = -1;
    }
    if (runStart >= 0) written += writeAll(fd, data, runStart, data.length);
    ftruncateSync(fd, data.length);
  } finally {
    closeSync(fd);
  }
  return written;
}

function writeAll(fd: number, data: Buffer, from: number, to: number): number {
  let at = from;
  while (at < to) at += writeSync(fd, data, at, to - at, at);
  return to - from;
}
