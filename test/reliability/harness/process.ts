/**
 * `order-desk start` as a child process, the way an operator (or a container runtime) runs it: configured only
 * through its environment, its JSON log lines appended to a file that outlives every restart. `kill()` is a
 * SIGKILL: no shutdown hook runs, exactly like an OOM kill or a node failure.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./world.ts";

export interface ProcessOptions {
  env: Record<string, string>;
  /** Every run's stdout and stderr are appended here. */
  logFile: string;
  /** `http://127.0.0.1:<HTTP_PORT>` */
  url: string;
}

export class OrderDeskProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | null = null;
  private readonly log: WriteStream;
  private stderrTail = "";
  /** Children this harness stopped on purpose (their exit is not a crash). */
  private readonly intentional = new WeakSet<ChildProcess>();
  /** Exits nobody asked for (a crash): code and signal of each. */
  readonly unexpectedExits: Array<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> =
    [];
  starts = 0;
  kills = 0;
  /** Milliseconds from spawn to /readyz 200, per start. */
  readonly startMs: number[] = [];

  constructor(private readonly options: ProcessOptions) {
    this.log = createWriteStream(options.logFile, { flags: "a" });
  }

  get running(): boolean {
    return this.child !== null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns the process and waits until /readyz answers 200. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.child) throw new Error("already running");
    const t0 = Date.now();
    const child = spawn(process.execPath, [join(ROOT, "bin/order-desk.js"), "start"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...this.options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    this.starts++;
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.log.write(chunk);
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4000);
    });
    this.exited = new Promise((resolve) => {
      child.on("exit", (code, signal) => {
        if (!this.intentional.has(child)) {
          this.unexpectedExits.push({ code, signal, stderr: this.stderrTail });
        }
        if (this.child === child) this.child = null;
        resolve({ code, signal });
      });
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.child !== child) {
        throw new Error(`order-desk exited while starting:\n${this.stderrTail}`);
      }
      try {
        const res = await fetch(`${this.options.url}/readyz`, { signal: AbortSignal.timeout(1000) });
        await res.body?.cancel();
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`order-desk not ready after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    this.startMs.push(Date.now() - t0);
  }

  /** SIGKILL, and wait for the exit. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.intentional.add(child);
    this.kills++;
    child.kill("SIGKILL");
    await this.exited;
  }

  /** SIGTERM (the orderly stop), waiting for exit; returns the exit code. */
  async stop(): Promise<number | null> {
    const child = this.child;
    if (!child) return 0;
    this.intentional.add(child);
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const { code } = (await this.exited) ?? { code: null };
    clearTimeout(timer);
    return code;
  }

  async close(): Promise<void> {
    await this.stop();
    await new Promise<void>((resolve) => this.log.end(resolve));
  }
}
