/**
 * Stand-alone entry: `node --import tsx src/cli/sandbox-main.ts --port 0` (same flags as `order-desk sandbox`).
 * For benchmarks and scripts that start the sandbox as a child process and read its URL from the first line.
 */
import { runSandboxCommand } from "./sandbox.ts";

process.exitCode = await runSandboxCommand(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
});
