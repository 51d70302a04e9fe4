/** `order-desk start` on glibc runs with a fixed malloc trim threshold (bin/malloc-trim.js). */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { MALLOC_TUNABLE, mallocTrimEnv } from "../../bin/malloc-trim.js";

const linux = { platform: "linux", glibc: true, canExec: true };

describe("mallocTrimEnv", () => {
  it("adds the tunable on Linux with glibc, keeping the other variables and tunables", () => {
    expect(mallocTrimEnv({ ...linux, env: { PATH: "/bin" } })).toEqual({
      PATH: "/bin",
      GLIBC_TUNABLES: MALLOC_TUNABLE,
    });
    expect(mallocTrimEnv({ ...linux, env: { GLIBC_TUNABLES: "glibc.pthread.rseq=0" } })).toEqual({
      GLIBC_TUNABLES: `glibc.pthread.rseq=0:${MALLOC_TUNABLE}`,
    });
  });

  it("leaves the process as it is elsewhere, and when the operator already set malloc's thresholds", () => {
    expect(mallocTrimEnv({ ...linux, platform: "darwin", env: {} })).toBeNull();
    expect(mallocTrimEnv({ ...linux, glibc: false, env: {} })).toBeNull();
    expect(mallocTrimEnv({ ...linux, canExec: false, env: {} })).toBeNull();
    expect(mallocTrimEnv({ ...linux, env: { GLIBC_TUNABLES: "glibc.malloc.arena_max=2" } })).toBeNull();
    expect(mallocTrimEnv({ ...linux, env: { MALLOC_TRIM_THRESHOLD_: "0" } })).toBeNull();
    // Once set (the replaced process), it is not set again: the command replaces itself at most once.
    expect(mallocTrimEnv({ ...linux, env: mallocTrimEnv({ ...linux, env: {} }) ?? {} })).toBeNull();
  });

  it("keeps the command's arguments when it replaces itself (`order-desk start --help`)", async () => {
    const child = spawn(process.execPath, ["bin/order-desk.js", "start", "--help"], {
      cwd: new URL("../..", import.meta.url),
      env: { PATH: process.env.PATH ?? "" },
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: order-desk start");
  });
});
