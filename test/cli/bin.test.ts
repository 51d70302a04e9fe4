/** The installed command line, as a user runs it: `order-desk <command>` through bin/order-desk.js. */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestKey } from "../../src/sandbox/keys.ts";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/sandbox.ts";
import { validOrder } from "../../tools/example-order.ts";

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["bin/order-desk.js", ...args], {
      cwd: new URL("../..", import.meta.url),
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("order-desk", () => {
  let sandbox: SandboxHandle;
  let dir: string;
  const key = generateTestKey();

  beforeAll(async () => {
    sandbox = await startSandbox({ apiKeys: [key], seed: "bin" });
    dir = await mkdtemp(join(tmpdir(), "order-desk-bin-"));
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("lists its commands and refuses an unknown one with exit code 2", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["start", "place", "sandbox", "doctor"]) {
      expect(help.stdout).toContain(command);
    }
    const unknown = await run(["plaec"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'plaec'");
  });

  it("points demo and bench, which are development tools outside the app, at their npm scripts", async () => {
    for (const [command, script] of [
      ["demo", "npm run demo"],
      ["bench", "npm run bench"],
    ]) {
      const moved = await run([command as string]);
      expect(moved.code).toBe(2);
      expect(moved.stderr).toContain(script);
    }
  });

  it("place: places the order in a JSON file on the supplier and prints one JSON line", async () => {
    const file = join(dir, "order.json");
    await writeFile(file, JSON.stringify(validOrder({ externalDocumentNumber: "PO-BIN-1" })));
    const placed = await run(["place", "--file", file], {
      SUPPLIER_BASE_URL: sandbox.url,
      SUPPLIER_API_KEY: key,
    });
    expect(placed.code).toBe(0);
    const line = JSON.parse(placed.stdout);
    expect(line).toMatchObject({ ok: true, externalDocumentNumber: "PO-BIN-1" });
    expect(await sandbox.order(line.correlationId)).not.toBeNull();
    expect(placed.stdout + placed.stderr).not.toContain(key);

    const again = await run(["place", "--file", file], {
      SUPPLIER_BASE_URL: sandbox.url,
      SUPPLIER_API_KEY: key,
    });
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: false, code: "DUPLICATE_ORDER" });
  });

  it("sandbox: lists every bad flag and exits 2", async () => {
    const bad = await run(["sandbox", "--port", "x", "--speed", "-1"]);
    expect(bad.code).toBe(2);
  });

  it("--version prints the version of package.json, and so does a command's --version", async () => {
    const { version } = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8"));
    for (const args of [["--version"], ["doctor", "--version"]]) {
      const shown = await run(args);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toBe(`order-desk ${version} (Node.js ${process.version})\n`);
    }
  });

  it("every command answers --help with its usage and exit 0, without running (start does not start)", async () => {
    const commands = ["start", "migrate", "doctor", "place", "sandbox", "jobs", "orders"];
    // No configuration at all: a command that ran instead of answering would fail.
    const answers = await Promise.all(commands.map((command) => run([command, "--help"])));
    answers.forEach((answer, i) => {
      expect(answer.code, commands[i]).toBe(0);
      expect(answer.stdout, commands[i]).toMatch(new RegExp(`^Usage: order-desk ${commands[i]}`));
      expect(answer.stderr, commands[i]).toBe("");
    });
  });

  it("start refuses unknown flags with exit 2, naming them, before reading any configuration", async () => {
    const bad = await run(["start", "--port", "3000", "--verbose"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "order-desk start: unknown options --port, --verbose\nRun 'order-desk start --help' for its options.\n",
    );
  });
});
