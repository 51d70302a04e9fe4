/**
 * A throwaway PostgreSQL server for the restart scenario, so the shared one is never touched: `initdb` into a
 * temporary directory, its own port, run as the `postgres` user (PostgreSQL refuses to run as root), stopped
 * and started at will. Needs the server binaries (/usr/lib/postgresql/<v>/bin) and root (for `runuser`).
 */
import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./world.ts";

const run = promisify(execFile);

export interface ThrowawayPostgres {
  readonly url: string;
  readonly port: number;
  /** `pg_ctl stop -m immediate`: the server dies without a checkpoint, like a crash or a node failure. */
  crash(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function findBin(): string | null {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(base, v, "bin");
    if (existsSync(join(bin, "initdb")) && existsSync(join(bin, "pg_ctl"))) return bin;
  }
  return null;
}

/** Why the scenario cannot run here, or null when it can. */
export function throwawayPostgresUnavailable(): string | null {
  if (!findBin()) return "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin";
  if (userInfo().uid !== 0) return "not root: cannot run the server as the postgres user";
  try {
    userInfo();
    return null;
  } catch {
    return "cannot read the current user";
  }
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = findBin();
  if (!bin) throw new Error("no PostgreSQL server binaries");
  const { stdout } = await run("id", ["-u", "postgres"]);
  const { stdout: gid } = await run("id", ["-g", "postgres"]);
  const dir = mkdtempSync(join(tmpdir(), "od-rel-pg-"));
  chmodSync(dir, 0o700);
  chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  const data = join(dir, "data");
  const port = await freePort();
  const as = (cmd: string, args: string[]) =>
    run("runuser", ["-u", "postgres", "--", join(bin, cmd), ...args]);
  await as("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await as("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "server.log"), "-w", "-t", "30", "start"]);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let closed = false;
  return {
    url,
    port,
    async crash() {
      await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    },
    start,
    async close() {
      if (closed) return;
      closed = true;
      await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
