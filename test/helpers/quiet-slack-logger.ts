import { type Logger, LogLevel } from "@slack/bolt";

/** A Bolt / Web API logger that drops everything: tests of Bolt apps assert on answers, not on log lines. */
export const quietSlackLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};
