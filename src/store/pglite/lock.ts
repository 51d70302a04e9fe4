/**
 * A lock file for the embedded store's directory. PGlite does not lock its data directory, and two processes
 * writing the same directory corrupt it, so the first process creates `order-desk.lock` exclusively (O_EXCL)
 * with its pid, and every later process gets a `StoreLockedError` naming the holder.
 *
 * A lock left behind by a process that died (crash, SIGKILL, OOM) is taken over: the pid is checked with
 * signal 0. A lock written on another host cannot be checked that way, so it is refused, never taken over.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { StoreLockedError } from "../errors.ts";

export const LOCK_FILE_NAME = "order-desk.lock";

export interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

export interface DirLock {
  readonly path: string;
  release(): void;
}

/** Directories locked by this process; a second open in the same process is refused like another process. */
const heldHere = new Set<string>();

export function acquireDirLock(dataDir: string, now: () => Date = () => new Date()): DirLock {
  const dir = resolve(dataDir);
  const path = join(dir, LOCK_FILE_NAME);
  const me: LockInfo = { pid: process.pid, host: hostname(), startedAt: now().toISOString() };

  if (heldHere.has(path)) {
    throw new StoreLockedError(dir, me.pid, me.host, "already open in this process");
  }

  // Two attempts: the second one follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path, me)) {
      heldHere.add(path);
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          heldHere.delete(path);
          // Only remove the file if it is still ours (it could have been taken over after a long pause).
          const current = readLock(path);
          if (current && current.pid === me.pid && current.startedAt === me.startedAt) safeUnlink(path);
        },
      };
    }
    const holder = readLock(path);
    if (holder === undefined) continue; // removed between our attempt and the read: try again
    if (holder !== null && holder.host !== me.host) {
      throw new StoreLockedError(
        dir,
        holder.pid,
        holder.host,
        `the lock was written on another host; if that process is certainly stopped, delete ${path}`,
      );
    }
    if (holder === null && isFresh(path)) {
      throw new StoreLockedError(dir, -1, "unknown", "another process is creating the lock right now");
    }
    // pid === ours and not held here: a previous life of this container (pid 1 again), so it is stale.
    if (holder !== null && holder.pid !== me.pid && isAlive(holder.pid)) {
      throw new StoreLockedError(dir, holder.pid, holder.host, `running since ${holder.startedAt}`);
    }
    // Stale (dead pid or unreadable leftovers of a crash during the write): remove it only if it is unchanged.
    const again = readLock(path);
    if (JSON.stringify(again) === JSON.stringify(holder)) safeUnlink(path);
  }
  const holder = readLock(path);
  throw new StoreLockedError(
    dir,
    holder?.pid ?? -1,
    holder?.host ?? "unknown",
    "lock could not be taken over",
  );
}

function tryCreate(path: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(info)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The lock's content; `null` when it exists but cannot be parsed; `undefined` when it does not exist. */
export function readLock(path: string): LockInfo | null | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<LockInfo>;
    if (
      typeof value.pid === "number" &&
      typeof value.host === "string" &&
      typeof value.startedAt === "string"
    ) {
      return { pid: value.pid, host: value.host, startedAt: value.startedAt };
    }
  } catch {
    // fall through: a torn write from a crash
  }
  return null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** An unreadable lock younger than this may be one another process is still writing. */
const TORN_LOCK_GRACE_MS = 5_000;

function isFresh(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < TORN_LOCK_GRACE_MS;
  } catch {
    return false;
  }
}

function safeUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
