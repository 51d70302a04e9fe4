/**
 * Order Desk started in the test process (`startOrderDesk`, the composition root `order-desk start` uses), for
 * the hostile-input scenarios: tens of thousands of requests are only affordable without a process boundary,
 * and a crash of the app is then a crash of this process, which vitest reports. Logs go to a file of the run
 * directory through the same redacting logger as production.
 */
import { createWriteStream } from "node:fs";
import { createLogger } from "../../../src/log.ts";
import type { OrderDesk } from "../../../src/main.ts";
import { logPath } from "./results.ts";
import type { World } from "./world.ts";

export interface InProcessDesk {
  desk: OrderDesk;
  logFile: string;
  close(): Promise<void>;
}

export async function startInProcessDesk(
  world: World,
  name: string,
  extraEnv: Record<string, string> = {},
): Promise<InProcessDesk> {
  const logFile = logPath(name);
  const stream = createWriteStream(logFile, { flags: "a" });
  let ended = false;
  // A handler abandoned by shutdown's settle window may still log once its Slack call returns: drop those
  // lines rather than write to a closed file (an uncaught error in the test process).
  const logger = createLogger(
    { level: extraEnv.LOG_LEVEL ?? "info" },
    { write: (line: string) => void (ended || stream.write(line)) },
  );
  const desk = await world.startDesk({ logger, env: { ORDER_DESK_DATA_DIR: "memory://", ...extraEnv } });
  return {
    desk,
    logFile,
    async close() {
      await desk.stop();
      ended = true;
      await new Promise<void>((resolve) => stream.end(resolve));
    },
  };
}

/** Counts what would have crashed a real process: uncaught exceptions and unhandled rejections. */
export function watchForCrashes(): { readonly count: number; readonly errors: string[]; stop(): void } {
  const errors: string[] = [];
  const onError = (error: unknown) => {
    errors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  };
  process.on("uncaughtException", onError);
  process.on("unhandledRejection", onError);
  return {
    get count() {
      return errors.length;
    },
    errors,
    stop() {
      process.off("uncaughtException", onError);
      process.off("unhandledRejection", onError);
    },
  };
}
