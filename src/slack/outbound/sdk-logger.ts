/**
 * The Slack SDKs' logger interface over ours: every client (slack/outbound/client.ts) and Bolt log through it.
 */
import { LogLevel as SlackLogLevel, type Logger as SlackSdkLogger } from "@slack/web-api";
import type { Logger } from "pino";

/**
 * A Slack SDK message split into its words and what it quotes: from the first `{` or `[` on (`http request body:
 * {…}`, `ack() response sent (body: {…})`, a whole request body), parsed when it is JSON. The quote is logged as
 * the field `slackBody`, which the personal-data redaction censors whole unless LOG_PERSONAL_DATA=true.
 */
function sdkLine(msg: unknown[]): [fields: { slackBody?: unknown }, text: string] {
  const text = msg.map((m) => (m instanceof Error ? m.message : String(m))).join(" ");
  const start = text.search(/[{[]/);
  if (start < 0) return [{}, text];
  const quoted = text.slice(start);
  let slackBody: unknown = quoted;
  try {
    slackBody = JSON.parse(quoted);
  } catch {
    // Not JSON as a whole (a closing parenthesis, a form body): kept as text, redacted all the same.
  }
  return [{ slackBody }, text.slice(0, start).trimEnd()];
}

/**
 * The Slack SDKs' logger interface (Bolt and @slack/web-api share it) over pino, so their messages land in
 * our JSON logs, redacted, instead of on the console. Their `info` chatter is logged at debug level. At debug
 * level they quote whole request and response bodies (the order message's blocks, the modal's values): those
 * go through the personal-data redaction as `slackBody` (see `sdkLine`).
 */
export function slackSdkLogger(logger: Logger): SlackSdkLogger {
  // Bolt logs several debug lines for every request it receives: skip building them when debug is off.
  const debug = (msg: unknown[]) => {
    if (logger.isLevelEnabled("debug")) logger.debug(...sdkLine(msg));
  };
  return {
    debug: (...msg) => debug(msg),
    info: (...msg) => debug(msg),
    warn: (...msg) => logger.warn(...sdkLine(msg)),
    error: (...msg) => logger.error(...sdkLine(msg)),
    setLevel: () => {},
    getLevel: () => SlackLogLevel.INFO,
    setName: () => {},
  };
}

/** For probes that report a failed call themselves (`order-desk doctor`): the SDK logs nothing. */
export const silentSdkLogger: SlackSdkLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => SlackLogLevel.ERROR,
  setName() {},
};
