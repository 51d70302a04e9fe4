import { LogLevel as SlackLogLevel, type Logger as SlackSdkLogger } from "@slack/web-api";
import { type DestinationStream, type Logger, type LoggerOptions, pino } from "pino";

/**
 * Paths pino censors before a line is written. Secrets are never logged on purpose; this list is the
 * safety net for the day someone logs a whole object (a request, an error with its config, a draft).
 * Personal data (the delivery contact and address) is redacted by default because logs travel to
 * places orders do not (log shippers, support tickets).
 */
export const SECRET_PATHS = [
  "apiKey",
  "*.apiKey",
  "key",
  "*.key",
  "token",
  "*.token",
  "botToken",
  "*.botToken",
  "appToken",
  "*.appToken",
  "bot_access_token",
  "*.bot_access_token",
  "signingSecret",
  "*.signingSecret",
  "secret",
  "*.secret",
  "secrets",
  "*.secrets",
  "webhookSecret",
  "*.webhookSecret",
  "password",
  "*.password",
  "authorization",
  "*.authorization",
  "headers.authorization",
  'headers["x-api-key"]',
  'headers["x-slack-signature"]',
  'headers["webhook-signature"]',
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  'req.headers["x-slack-signature"]',
  'req.headers["webhook-signature"]',
  "SecretString",
  "*.SecretString",
];

export const PERSONAL_DATA_PATHS = [
  "contact",
  "*.contact",
  "*.*.contact",
  "email",
  "*.email",
  "phoneNumber",
  "*.phoneNumber",
  "firstName",
  "*.firstName",
  "lastName",
  "*.lastName",
  "address1",
  "*.address1",
  "*.*.address1",
  "address2",
  "*.address2",
  "*.*.address2",
  "shipping",
  "*.shipping",
  "request.shipping",
  "draft",
  "*.draft",
];

export interface LoggerConfig {
  level: string;
  /** Keep personal data in logs (for local debugging only). */
  logPersonalData?: boolean;
  name?: string;
}

export function createLogger(config: LoggerConfig, destination?: DestinationStream): Logger {
  const paths = config.logPersonalData ? SECRET_PATHS : [...SECRET_PATHS, ...PERSONAL_DATA_PATHS];
  const options: LoggerOptions = {
    level: config.level,
    name: config.name ?? "order-desk",
    redact: { paths, censor: "[redacted]" },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

export const silentLogger: Logger = pino({ level: "silent" });

/**
 * The Slack SDKs' logger interface (Bolt and @slack/web-api share it) over pino, so their messages land in
 * our JSON logs, redacted, instead of on the console. Their `info` chatter is logged at debug level.
 */
export function slackSdkLogger(logger: Logger): SlackSdkLogger {
  const text = (msg: unknown[]) => msg.map((m) => (m instanceof Error ? m.message : String(m))).join(" ");
  return {
    debug: (...msg) => logger.debug(text(msg)),
    info: (...msg) => logger.debug(text(msg)),
    warn: (...msg) => logger.warn(text(msg)),
    error: (...msg) => logger.error(text(msg)),
    setLevel: () => {},
    getLevel: () => SlackLogLevel.INFO,
    setName: () => {},
  };
}
