/**
 * Writes the entries of a tar archive (the ustar that PGlite's `dumpDataDir` makes) into a directory, as the
 * archive streams in. Only what a data directory holds is accepted: directories and regular files, relative
 * names without `..`.
 *
 * - Streamed, never whole in memory: the prebuilt data directory is 40 MB of tar, and a first start that
 *   decompressed it into one buffer kept ≈ 35 MB more resident for good (the allocator does not give it back).
 * - Several files at a time: a data directory is ≈ 1,000 small files, and on a busy disk creating each one took
 *   up to a millisecond; written one after another they were most of a first start.
 * - Sparse: 8 KiB pages that are all zeros are not written; the file is extended over them, so they read as
 *   zeros and take no disk space. A data directory's WAL segment is 16 MB of which a prebuilt store uses
 *   a few kilobytes: written whole it was about half of the bytes a first start wrote.
 */
import { mkdirSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { isAbsolute, join, normalize, sep } from "node:path";

const BLOCK = 512;
/** Holes are made of whole pages: a page with data at both ends and zeros between is written in one piece. */
const PAGE = 8192;
const ZEROS = Buffer.alloc(PAGE);
/** Files being written at once (libuv runs 4 operations at a time; the rest wait in its queue, ready to go). */
const CONCURRENT_FILES = 16;
/** A file's bytes waiting to be written before the stream is paused for them. */
const PENDING_BYTES = 1 << 20;

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

interface OpenFile {
  name: string;
  size: number;
  /** Bytes of the file received so far. */
  received: number;
  /** Received bytes not handed to a write yet (less than a run of whole pages, or the small file's whole). */
  held: Buffer[];
  heldBytes: number;
  /** The file's writes, in order; each waits for the one before. */
  writes: Promise<FileHandle>;
  pendingBytes: number;
  /** Where the last byte written ends: the file is extended to its size only when holes end it. */
  writtenEnd: number;
}

/** A file's bytes are written in runs of this many (whole pages), or whole when it is not longer. */
const RUN = 256 * 1024;

/**
 * Extracts the archive `chunks` yield (of any sizes) into `dir`, which must exist: directories get 0700, files
 * 0600. On a failure the files opened so far are closed before it is thrown; the caller removes `dir`.
 */
export async function extractTar(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  dir: string,
): Promise<ExtractSummary> {
  const writing = new Set<Promise<void>>();
  let failure: unknown = null;
  let files = 0;
  let bytesWritten = 0;
  let header = Buffer.alloc(0);
  let file: OpenFile | null = null;
  let skip = 0; // padding after a file's data
  let ended = false;

  const finish = (done: OpenFile) => {
    const closing = done.writes
      .then(async (handle) => {
        try {
          if (done.writtenEnd < done.size) await handle.truncate(done.size);
        } finally {
          await handle.close();
        }
      })
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => writing.delete(closing));
    writing.add(closing);
    files++;
  };

  /** Queues the write of `data` at `position` after the file's earlier writes. */
  const write = (target: OpenFile, data: Buffer, position: number) => {
    target.pendingBytes += data.length;
    target.writes = target.writes.then(async (handle) => {
      const { written, end } = await writeSparse(handle, data, position);
      bytesWritten += written;
      target.writtenEnd = Math.max(target.writtenEnd, end);
      target.pendingBytes -= data.length;
      return handle;
    });
  };

  const receive = (target: OpenFile, piece: Buffer) => {
    target.held.push(piece);
    target.heldBytes += piece.length;
    target.received += piece.length;
    const complete = target.received === target.size;
    if (!complete && target.heldBytes < RUN) return;
    // Whole pages only, so a page is never split between two writes (its zeros could not be skipped).
    const start = target.received - target.heldBytes;
    const length = complete ? target.heldBytes : Math.floor(target.heldBytes / PAGE) * PAGE;
    const held = Buffer.concat(target.held, target.heldBytes);
    write(target, held.subarray(0, length), start);
    target.held = length < held.length ? [held.subarray(length)] : [];
    target.heldBytes = held.length - length;
  };

  try {
    for await (const chunk of chunks) {
      if (failure) break;
      let at = 0;
      while (at < chunk.length && !ended) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - at);
          skip -= n;
          at += n;
        } else if (file) {
          const n = Math.min(file.size - file.received, chunk.length - at);
          receive(file, chunk.subarray(at, at + n));
          at += n;
          if (file.received === file.size) {
            skip = (BLOCK - (file.size % BLOCK)) % BLOCK;
            finish(file);
            file = null;
          } else if (file.pendingBytes > PENDING_BYTES) {
            await file.writes;
          }
        } else {
          const n = Math.min(BLOCK - header.length, chunk.length - at);
          header = Buffer.concat([header, chunk.subarray(at, at + n)]);
          at += n;
          if (header.length < BLOCK) continue;
          const entry = readHeader(header);
          header = Buffer.alloc(0);
          if (entry === null) {
            ended = true;
          } else if (entry.type === "dir") {
            if (entry.name) mkdirSync(join(dir, entry.name), { recursive: true, mode: 0o700 });
          } else {
            const opened: OpenFile = {
              name: entry.name,
              size: entry.size,
              received: 0,
              held: [],
              heldBytes: 0,
              writes: open(join(dir, entry.name), "wx", 0o600),
              pendingBytes: 0,
              writtenEnd: 0,
            };
            if (entry.size === 0) finish(opened);
            else file = opened;
            while (writing.size >= CONCURRENT_FILES) await Promise.race(writing);
          }
        }
      }
      if (ended) break;
    }
    if (!failure && file) failure = new TarFormatError(`${file.name} is cut short`);
    if (!failure && !ended) failure = new TarFormatError("no end-of-archive marker");
  } catch (error) {
    failure ??= error;
  }
  if (file) finish(file); // close what is open, even on a failure
  await Promise.all(writing);
  if (failure) throw failure;
  return { files, bytesWritten };
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
  const relative = name.replace(/^\/+/, "");
  if (relative === "" || relative === ".") return "";
  const normalized = normalize(relative);
  if (isAbsolute(normalized) || normalized === ".." || normalized.startsWith(`..${sep}`)) {
    throw new TarFormatError(`entry ${JSON.stringify(name)} points outside the directory`);
  }
  return normalized;
}

/**
 * Writes `data` at `position` (a page boundary), skipping its all-zero pages; returns the bytes written and where
 * the last of them ends in the file (0 when none were).
 */
async function writeSparse(
  handle: FileHandle,
  data: Buffer,
  position: number,
): Promise<{ written: number; end: number }> {
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
      for (let from = runStart; from < runEnd; ) {
        from += (await handle.write(data, from, runEnd - from, position + from)).bytesWritten;
      }
      written += runEnd - runStart;
      end = position + runEnd;
      runStart = -1;
    }
    if (at >= data.length) return { written, end };
  }
}
