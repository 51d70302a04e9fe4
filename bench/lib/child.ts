/**
 * The parent side: starts servers under test and load generators as their own Node processes (through tsx), so
 * a server never shares a CPU core's event loop with the code measuring it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { READY_PREFIX, RESULT_PREFIX } from "./ipc.ts";

const STDERR_TAIL = 4000;

export interface ChildOptions {
  /** Extra environment for the child (merged over the parent's). */
  env?: Record<string, string>;
  /** Extra flags for node, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** How long to wait for the ready line or the result. */
  timeoutMs?: number;
  /** Command-line arguments instead of the JSON configuration (for our real CLI, e.g. `bin/order-desk.js`). */
  args?: string[];
  /**
   * For children that do not speak the harness protocol: the line (stdout or stderr) that says it is ready,
   * with the URL as the first capture group.
   */
  readyPattern?: RegExp;
  /**
   * For children that announce nothing: polled (GET) until it answers 2xx, e.g. our app's `/readyz`. The
   * handle's URL is this URL's origin.
   */
  readyUrl?: string;
  /** False for scripts that load tsx themselves (`bin/order-desk.js`), so it is not registered twice. */
  tsx?: boolean;
  /** Also copies the child's stdout and stderr into this file (its log, for a diagnosis). */
  logFile?: string;
  /** Inherited variables to drop, e.g. the app's own (a `DATABASE_URL` in the bench's shell must not leak). */
  unsetEnv?: readonly string[];
}

export interface ServerHandle<I = Record<string, unknown>> {
  url: string;
  info: I & { url: string };
  pid: number;
  /** Milliseconds from spawn to the ready line (includes Node and tsx start-up). */
  startMs: number;
  /** Resident set size of the child now, in MB (Linux /proc; NaN elsewhere). */
  rssMb(): number;
  stop(): Promise<void>;
}

function spawnChild(root: string, script: string, config: unknown, options: ChildOptions): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of options.unsetEnv ?? []) delete env[name];
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      ...(options.tsx === false ? [] : ["--import", "tsx"]),
      script,
      ...(options.args ?? [JSON.stringify(config)]),
    ],
    { cwd: root, env: { ...env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  if (options.logFile) {
    const log = createWriteStream(options.logFile, { flags: "a" });
    child.stdout?.on("data", (chunk: Buffer) => log.write(chunk));
    child.stderr?.on("data", (chunk: Buffer) => log.write(chunk));
    child.once("exit", () => log.end());
  }
  return child;
}

/** Polls `url` until it answers 2xx; resolves false when `signal` says to give up. */
async function pollUntilReady(url: string, stopped: () => boolean): Promise<boolean> {
  while (!stopped()) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

function collectTail(child: ChildProcess): () => string {
  let tail = "";
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL);
  };
  child.stderr?.on("data", keep);
  return () => tail.trim();
}

/** CPU time (user + system) a process has used, in clock ticks (Linux /proc); NaN elsewhere. */
export function cpuTicksOfPid(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
}

/**
 * Waits until none of the processes uses more than ~5 % of a core, so work a server deferred past its answers
 * (posting after an ack, draining a queue) does not run during the next side's measured round. Gives up after
 * `maxMs` and says so: the round then runs on a busy machine, which the caller notes.
 */
export async function waitForQuiet(pids: readonly number[], maxMs = 30_000): Promise<boolean> {
  const windowMs = 500;
  const deadline = performance.now() + maxMs;
  let before = pids.map(cpuTicksOfPid);
  if (before.some(Number.isNaN)) return true;
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = pids.map(cpuTicksOfPid);
    // 100 ticks per second on Linux: 5 % of a core over 500 ms is 2.5 ticks.
    const busiest = Math.max(...after.map((t, i) => t - (before[i] as number)));
    if (busiest <= 2) return true;
    before = after;
  }
  return false;
}

export function rssOfPid(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** Every child still running, so an interrupted or failed run leaves nothing behind. */
const live = new Set<ChildProcess>();

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((child) => terminate(child)));
}

/** Starts `script` and resolves once it prints its ready line. */
export async function startServer<I = Record<string, unknown>>(
  root: string,
  script: string,
  config: unknown,
  options: ChildOptions = {},
): Promise<ServerHandle<I>> {
  const started = performance.now();
  const child = spawnChild(root, script, config, options);
  live.add(child);
  child.on("exit", () => live.delete(child));
  const stderr = collectTail(child);
  const lines = createInterface({ input: child.stdout! });
  const timeoutMs = options.timeoutMs ?? 60_000;
  try {
    const info = await new Promise<I & { url: string }>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(new Error(`${script} was not ready within ${timeoutMs} ms.\n${stderr()}`));
      }, timeoutMs);
      if (options.readyUrl) {
        const readyUrl = options.readyUrl;
        void pollUntilReady(readyUrl, () => settled).then((ready) => {
          if (!ready || settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ url: new URL(readyUrl).origin } as I & { url: string });
        });
      }
      const onLine = (line: string) => {
        if (options.readyUrl) return;
        if (options.readyPattern) {
          const url = options.readyPattern.exec(line)?.[1];
          if (url === undefined) return;
          clearTimeout(timer);
          resolve({ url } as I & { url: string });
          return;
        }
        if (!line.startsWith(READY_PREFIX)) return;
        clearTimeout(timer);
        resolve(JSON.parse(line.slice(READY_PREFIX.length)));
      };
      lines.on("line", onLine);
      if (options.readyPattern) createInterface({ input: child.stderr! }).on("line", onLine);
      child.once("exit", (code, signal) => {
        settled = true;
        clearTimeout(timer);
        reject(new Error(`${script} exited (${signal ?? code}) before it was ready.\n${stderr()}`));
      });
    });
    const startMs = performance.now() - started;
    const pid = child.pid!;
    return {
      url: info.url,
      info,
      pid,
      startMs,
      rssMb: () => rssOfPid(pid),
      stop: () => terminate(child),
    };
  } catch (error) {
    await terminate(child);
    throw error;
  }
}

/** Runs `script` to completion and returns what it reported on its result line. */
export async function runWorker<T>(
  root: string,
  script: string,
  config: unknown,
  options: ChildOptions = {},
): Promise<T> {
  const child = spawnChild(root, script, config, options);
  live.add(child);
  const stderr = collectTail(child);
  const lines = createInterface({ input: child.stdout! });
  let result: T | undefined;
  let unreadable: string | undefined;
  lines.on("line", (line) => {
    if (!line.startsWith(RESULT_PREFIX)) return;
    try {
      result = JSON.parse(line.slice(RESULT_PREFIX.length)) as T;
    } catch (error) {
      unreadable = `its result line is not JSON (${(error as Error).message}); was it cut short?`;
    }
  });
  const timeoutMs = options.timeoutMs ?? 120_000;
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  // Wait for stdout to close too: 'exit' can fire before the last line has been read.
  const [[code, signal]] = (await Promise.all([once(child, "exit"), once(lines, "close")])) as [
    [number | null, NodeJS.Signals | null],
    unknown,
  ];
  clearTimeout(timer);
  live.delete(child);
  if (result === undefined) {
    throw new Error(
      `${script} ended (${signal ?? code}) without a result${unreadable ? `: ${unreadable}` : "."}\n${stderr()}`,
    );
  }
  return result;
}
