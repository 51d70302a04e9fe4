/**
 * `order-desk doctor [--json] [--timeout-ms N]`
 *
 * Checks configuration, Slack, the supplier, the API key, the database and the queues, one line per check:
 * `ok|warn|fail  name  detail`. Exit codes: 0 nothing failed (warnings allowed), 1 a check failed, 2 bad usage.
 * Configuration comes from the `env` argument, never from `process.env` directly.
 */
import { parseArgs } from "node:util";
import { formatResults, summarize } from "../ops/check.ts";
import { DEFAULT_CHECK_TIMEOUT_MS, type DoctorOptions, runDoctorChecks } from "../ops/doctor.ts";

export interface DoctorIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

export const DOCTOR_USAGE = `Usage: order-desk doctor [--json] [--timeout-ms N]

Checks what Order Desk needs, with the configuration it would start with, one line per check:
  ok|warn|fail  name  detail
Read-only: places no order, posts nothing to Slack, applies no migration.
  --json         print the results as one JSON array instead
  --timeout-ms   deadline of each check (default ${DEFAULT_CHECK_TIMEOUT_MS})
Exit codes: 0 no check failed (warnings allowed), 1 a check failed, 2 bad usage.
`;

export async function runDoctor(
  argv: string[],
  env: Record<string, string | undefined>,
  io: DoctorIo,
  options: DoctorOptions = {},
): Promise<number> {
  let values: { json?: boolean; "timeout-ms"?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        json: { type: "boolean" },
        "timeout-ms": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    io.stderr.write(`order-desk doctor: ${(error as Error).message}\n\n${DOCTOR_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(DOCTOR_USAGE);
    return 0;
  }
  let timeoutMs = options.timeoutMs;
  if (values["timeout-ms"] !== undefined) {
    timeoutMs = Number(values["timeout-ms"]);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 300_000) {
      io.stderr.write(
        "order-desk doctor: --timeout-ms must be a whole number of milliseconds, 100 to 300000\n",
      );
      return 2;
    }
  }

  const results = await runDoctorChecks(env, {
    ...options,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
  if (values.json) io.stdout.write(`${JSON.stringify(results)}\n`);
  else io.stdout.write(`${formatResults(results)}\n${summarize(results)}\n`);
  return results.some((r) => r.status === "fail") ? 1 : 0;
}
