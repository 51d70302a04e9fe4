/**
 * `order-desk sandbox`: the composition root of the supplier sandbox. The sandbox never imports the app; with
 * `--data-dir` it keeps its orders in a project store that this command opens and hands to it. Its flags go
 * through the command line's shared checks first (--help, --version, unknown flags), like every command's.
 */
import { runSandbox, SANDBOX_OPTIONS, SANDBOX_USAGE, type SandboxIo } from "../sandbox/cli.ts";
import { openStore } from "../store/db.ts";
import { parseCommandArgs } from "./args.ts";

const SPEC = { name: "sandbox", usage: SANDBOX_USAGE, options: SANDBOX_OPTIONS };

export async function runSandboxCommand(argv: string[], io: SandboxIo): Promise<number> {
  const args = parseCommandArgs(SPEC, argv, io);
  if (!args.ok) return args.exitCode;
  return runSandbox(argv, { openDatabase: (dataDir, logger) => openStore({ dataDir, logger }), ...io });
}
