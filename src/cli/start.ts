/**
 * `order-desk start`: reads the environment, runs until SIGTERM/SIGINT, exits 0 after a clean stop.
 *
 * A start that cannot go on says why in one line on stderr and exits 1. Problems we know (configuration, the
 * customer file, a locked store, Slack refusing the token: errors with a `code`) keep their stack out of the
 * way, at debug level; anything else is logged as fatal with its stack, since that is a bug to report.
 */
import { flushCompileCache } from "node:module";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { createLogger } from "../log.ts";
import { type OrderDesk, startOrderDesk } from "../main.ts";
import { type CommandIo, parseCommandArgs } from "./args.ts";
import { releaseYoungGeneration } from "./young-generation.ts";

export const START_USAGE = `Usage: order-desk start

Runs Order Desk until SIGTERM or SIGINT: the Slack app (Socket Mode or HTTP), the supplier's webhooks, the job
workers, /healthz and /readyz on HTTP_PORT, /metrics on the operations listener. It applies pending database
migrations first. Configuration comes from the environment (README.md, .env.example); check it first with
\`order-desk doctor\`.
Exit codes: 0 stopped cleanly, 1 could not start, 2 bad usage.
`;

const SPEC = { name: "start", usage: START_USAGE, options: {} };

/** Ours and Node's own known failures carry a `code`; an error without one is unexpected. */
function isKnownProblem(error: unknown): boolean {
  return typeof (error as { code?: unknown } | null)?.code === "string";
}

export async function runStart(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CommandIo,
): Promise<number | undefined> {
  const args = parseCommandArgs(SPEC, argv, io);
  if (!args.ok) return args.exitCode;
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const logger = createLogger({
    level: config.log.level,
    format: config.log.format,
    logPersonalData: config.log.logPersonalData,
  });
  let desk: OrderDesk;
  try {
    desk = await startOrderDesk(config, { logger });
  } catch (error) {
    if (isKnownProblem(error)) logger.debug({ err: error }, "Order Desk could not start");
    else logger.fatal({ err: error }, "Order Desk could not start");
    io.stderr.write(`Order Desk could not start: ${(error as Error).message}\n`);
    return 1;
  } finally {
    releaseYoungGeneration();
  }
  // What V8 compiled while starting, kept for the next start now rather than when this process exits: a process
  // that is killed, not stopped, writes nothing (bin/order-desk.js enables the cache).
  flushCompileCache();
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, "stopping: no new work, finishing running jobs");
      resolve();
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  });
  await desk.stop();
  logger.info("stopped");
  return 0;
}
