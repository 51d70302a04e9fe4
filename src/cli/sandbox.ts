/**
 * `order-desk sandbox`: the composition root of the supplier sandbox. The sandbox never imports the app; with
 * `--data-dir` it keeps its orders in a project store that this command opens and hands to it.
 */
import { runSandbox, type SandboxIo } from "../sandbox/cli.ts";
import { openStore } from "../store/db.ts";

export function runSandboxCommand(argv: string[], io: SandboxIo): Promise<number> {
  return runSandbox(argv, { openDatabase: (dataDir, logger) => openStore({ dataDir, logger }), ...io });
}
