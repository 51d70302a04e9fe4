import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

/** `npm run demo` is the README's first command: it must keep working end to end. */
function runDemo(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/order-desk.js", "demo", ...args], {
      cwd: new URL("../..", import.meta.url),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run demo", () => {
  it.each([
    ["HTTP", []],
    ["Socket Mode", ["--socket"]],
  ])(
    "places three orders through Slack over %s and prints every thread until delivery",
    async (transport, flags) => {
      const run = await runDemo([...flags, "--speed", "600", "--timeout-ms", "120000"]);
      expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
      expect(run.stdout).toContain(`start Order Desk (embedded store, Slack over ${transport})`);
      expect(run.stdout).toMatch(/inline errors on: .*country/);
      expect(run.stdout).toContain("the supplier holds 3 orders, each placed once");
      // The README promises a newcomer's demo in under a minute.
      const seconds = Number(/Done in ([\d.]+) s\./.exec(run.stdout)?.[1]);
      expect(seconds).toBeLessThan(60);
      expect(run.stdout).toMatch(/"external_document_number":"ONB-7-1"/);
      // The two top-level order messages end delivered (the shortcut's order lives in the ticket's thread).
      expect(run.stdout.match(/status: 🎉 \*Delivered\*/g)).toHaveLength(2);
      expect(run.stdout).toContain("Order for *HD-1042*");
      expect(run.stdout).toContain("Order for *HD-1043*");
    },
    180_000,
  );

  it("says what is wrong with its options and exits 2", async () => {
    const run = await runDemo(["--speed", "fast"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--speed and --timeout-ms take numbers > 0/);
  });
});
