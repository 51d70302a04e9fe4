import { type Logger, pino } from "pino";

/** A pino logger whose JSON lines are kept in memory, for tests that check what was logged. */
export function captureLog(level = "info"): { logger: Logger; lines(): Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level },
    {
      write(line: string) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines: () => lines };
}
