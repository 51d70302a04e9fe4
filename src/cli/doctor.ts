/**
 * `order-desk doctor [--json] [--timeout-ms N]`
 *
 * Checks configuration, Slack, the supplier, the API key, the database and the queues, one line per check:
 * `ok|note|warn|fail  name  detail`, after the version. Exit codes: 0 nothing failed (notes and warnings allowed),
 * 1 a check failed, 2 bad usage.
 * Configuration comes from the `env` argument, never from `process.env` directly.
 */
import { formatResults, summarize } from "../ops/check.ts";
import { DEFAULT_CHECK_TIMEOUT_MS, type DoctorOptions, runDoctorChecks } from "../ops/doctor.ts";
import { EXIT_USAGE, parseCommandArgs, versionLine } from "./args.ts";

export interface DoctorIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

export const DOCTOR_USAGE = `Usage: order-desk doctor [--json] [--timeout-ms N]

Checks what Order Desk needs, with the configuration it would start with, one line per check:
  ok|note|warn|fail  name  detail
A note is not a problem: e.g. a new database, which Order Desk creates or migrates when it starts.
Read-only: places no order, posts nothing to Slack, applies no migration (\`order-desk migrate\` does).
  --json         print the results as one JSON array instead
  --timeout-ms   deadline of each check (default ${DEFAULT_CHECK_TIMEOUT_MS})
Exit codes: 0 no check failed (notes and warnings allowed), 1 a check failed, 2 bad usage.
`;

const SPEC = {
  name: "doctor",
  usage: DOCTOR_USAGE,
  options: { json: { type: "boolean" }, "timeout-ms": { type: "string" } },
} as const;

export async function runDoctor(
  argv: string[],
  env: Record<string, string | undefined>,
  io: DoctorIo,
  options: DoctorOptions = {},
): Promise<number> {
  const args = parseCommandArgs(SPEC, argv, io);
  if (!args.ok) return args.exitCode;
  const { values } = args;
  let timeoutMs = options.timeoutMs;
  if (values["timeout-ms"] !== undefined) {
    timeoutMs = Number(values["timeout-ms"]);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 300_000) {
      io.stderr.write(
        "order-desk doctor: --timeout-ms must be a whole number of milliseconds, 100 to 300000\n",
      );
      return EXIT_USAGE;
    }
  }

  const results = await runDoctorChecks(env, {
    ...options,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
  if (values.json) io.stdout.write(`${JSON.stringify(results)}\n`);
  else io.stdout.write(`${versionLine()}${formatResults(results)}\n${summarize(results)}\n`);
  return results.some((r) => r.status === "fail") ? 1 : 0;
}
