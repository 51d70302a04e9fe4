import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

/** `>=22.19` → [22, 19]: the minimum package.json's engines field asks for. */
async function minimum(): Promise<[number, number]> {
  const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8"));
  const match = /^>=(\d+)\.(\d+)$/.exec(pkg.engines.node);
  if (!match) throw new Error(`engines.node is not of the form >=MAJOR.MINOR: ${pkg.engines.node}`);
  return [Number(match[1]), Number(match[2])];
}

function atLeast(version: string, [major, minor]: [number, number]): boolean {
  const [m, n] = version.replace(/^v/, "").split(".").map(Number) as [number, number];
  return m > major || (m === major && n >= minor);
}

describe("the Node.js the tests run on", () => {
  it("meets the engines minimum in the test workers, whatever the machine's own Node", async () => {
    console.info(`test worker: node ${process.version} (${process.execPath})`);
    expect(atLeast(process.version, await minimum())).toBe(true);
  });

  it("is also the `node` that child processes find on PATH (tsx, bin/ scripts, spawned servers)", async () => {
    const { stdout } = await run("node", ["-p", "process.version"]);
    console.info(`node on PATH: ${stdout.trim()}`);
    expect(atLeast(stdout.trim(), await minimum())).toBe(true);
  });

  it("runs bin/ scripts and tsx on the same Node as the workers", async () => {
    const { stdout } = await run("node", ["--import", "tsx", "-e", "console.log(process.version)"]);
    expect(stdout.trim()).toBe(process.version);
  });
});
