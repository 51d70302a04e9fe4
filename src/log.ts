import { type DestinationStream, type Logger, type LoggerOptions, pino, stdSerializers } from "pino";
import { prettyStream } from "./log-pretty.ts";

const CENSOR = "[redacted]";

/**
 * Field names whose value is a secret, redacted wherever they appear: at any depth, in request bodies and
 * headers, in errors (their own fields included). Names compare case-insensitively and without `-` / `_`, so
 * `x-api-key`, `X-Api-Key` and `xApiKey` are one name. Secrets are never logged on purpose; this is the safety
 * net for the day someone logs a whole object (a request, an error with its config, a draft).
 */
export const SECRET_FIELDS = [
  "apiKey",
  "x-api-key",
  "token",
  "botToken",
  "appToken",
  "accessToken",
  "bot_access_token",
  "refreshToken",
  "signingSecret",
  "clientSecret",
  "secret",
  "secrets",
  "webhookSecret",
  "webhookSecrets",
  "password",
  "authorization",
  "cookie",
  "SecretString",
  "signature",
  "x-slack-signature",
  "webhook-signature",
] as const;

/** `key` is too common a name to censor at every depth: it is redacted at the top level and one level down. */
export const SHALLOW_SECRET_FIELDS = ["key"] as const;

/**
 * Personal data (the delivery contact and addresses, in the supplier's request, the modal's draft and Slack's
 * view state), redacted at any depth unless LOG_PERSONAL_DATA=true, because logs travel to places orders do not
 * (log shippers, support tickets). `shipping`, `contact`, `address` and `draft` are redacted whole.
 */
export const PERSONAL_DATA_FIELDS = [
  "contact",
  "email",
  "phone",
  "phoneNumber",
  "firstName",
  "lastName",
  "attention",
  "attentionName",
  "address",
  "address1",
  "address2",
  "city",
  "zip",
  "zipCode",
  "stateName",
  "shipping",
  "draft",
  // What the Slack SDKs quote of a request or response (`slackSdkLogger`): blocks and view state, whose texts
  // carry names and addresses under no telling key.
  "slackBody",
] as const;

/**
 * Secret values recognised by their form, replaced inside any string (messages, error messages, stacks): supplier
 * API keys, Slack tokens, Standard Webhooks secrets and signatures.
 *
 * Linear in the length of the text: every alternative starts at a word boundary with a fixed prefix, and each
 * open-ended run (`{8,}`) can only end in a match, so a failed start costs a bounded number of steps and a match
 * consumes what it read. E-mail addresses are found by a scan instead (`scrubEmails`).
 */
const SECRET_VALUE =
  /\b[a-z][a-z0-9]{1,15}_(?:live|test)_[0-9a-f]{32}\b|\bxox[a-z]-[A-Za-z0-9-]{8,}|\bxapp-[A-Za-z0-9-]{8,}|\bwhsec_[A-Za-z0-9+/]{8,}={0,2}|\bv1,[A-Za-z0-9+/]{43}=/g;
/**
 * Longest string written to a log line, in characters. What comes from outside (a header, a supplier's field, a
 * Slack payload) can be a megabyte; it is cut before any pattern runs, so logging costs the same whatever was sent.
 */
export const MAX_LOGGED_CHARS = 4000;
const SEPARATORS = new Uint8Array(128);
for (const c of "\"'();<>[\\]`{|}") SEPARATORS[c.charCodeAt(0)] = 1;
/** Where a cut may fall: never inside a run of other characters, which could be a secret or an address cut in half. */
function isSeparator(code: number): boolean {
  return code <= 32 || (code < 128 && SEPARATORS[code] === 1);
}

/**
 * `text` cut to `max` characters, at a separator, with what was left out counted. A value without a separator
 * in its first `max` characters is left out whole: half a token would not be recognised as a secret.
 */
export function capForLog(text: string, max = MAX_LOGGED_CHARS): string {
  if (text.length <= max) return text;
  let cut = max;
  while (cut > 0 && !isSeparator(text.charCodeAt(cut - 1))) cut--;
  return `${text.slice(0, cut)}…[${text.length - cut} more characters not logged]`;
}

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;
/** `[A-Za-z0-9-]`: a domain label's characters. */
const isLabel = (c: number) => isLetter(c) || isDigit(c) || c === 45;
/** `[A-Za-z0-9._%+-]`: the characters of an address's name part. */
const isLocal = (c: number) => isLabel(c) || c === 46 || c === 95 || c === 37 || c === 43;

/**
 * End of the e-mail domain starting at `from` (after the `@`), or -1: labels of `[A-Za-z0-9-]` joined by dots,
 * ending in a label that starts with two letters (the top-level domain), the longest such. One pass.
 */
function domainEnd(text: string, from: number): number {
  let end = -1;
  let i = from;
  for (let label = 0; ; label++) {
    const start = i;
    while (i < text.length && isLabel(text.charCodeAt(i))) i++;
    if (i === start) break;
    if (label > 0) {
      let letters = start;
      while (letters < i && isLetter(text.charCodeAt(letters))) letters++;
      if (letters - start >= 2) end = letters;
    }
    if (text.charCodeAt(i) !== 46) break;
    i++;
  }
  return end;
}

/**
 * Every e-mail address in `text` replaced by `censor`, by a scan from each `@` rather than a regular expression:
 * an address pattern run by a backtracking engine re-reads the whole run of name characters from every start
 * position, which is quadratic (and froze the process on a 900 KB field). Here each character is read at most
 * twice (as part of the name before one `@` and of the domain after one `@`), so the time is linear.
 */
export function scrubEmails(text: string, censor = CENSOR): string {
  let at = text.indexOf("@");
  if (at < 0) return text;
  let out = "";
  let copied = 0;
  while (at >= 0) {
    let start = at;
    while (start > copied && isLocal(text.charCodeAt(start - 1))) start--;
    const end = start < at ? domainEnd(text, at + 1) : -1;
    if (end > 0) {
      out += text.slice(copied, start) + censor;
      copied = end;
      at = text.indexOf("@", end);
    } else {
      at = text.indexOf("@", at + 1);
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Secrets (and e-mail addresses unless `personalData`) scrubbed from `text`, whatever its length. */
export function scrubUncapped(text: string, options: RedactOptions = {}): string {
  const clean = text.replace(SECRET_VALUE, CENSOR);
  return options.personalData ? clean : scrubEmails(clean);
}

/** What the logger writes of a string: cut to `MAX_LOGGED_CHARS` first, then scrubbed (`scrubUncapped`). */
export function scrubText(text: string, options: RedactOptions = {}): string {
  return scrubUncapped(capForLog(text), options);
}

/** Deeper than any object we log on purpose: what lies below is censored rather than walked. */
const MAX_DEPTH = 16;

const fieldName = (name: string) => name.toLowerCase().replace(/[-_]/g, "");

export interface RedactOptions {
  /** Keep personal data (LOG_PERSONAL_DATA=true). Secrets are redacted regardless. */
  personalData?: boolean;
}

/** What `redact` applies: which names to censor and how to scrub strings. */
interface Rules {
  names: Set<string>;
  shallow: Set<string>;
  scrub(text: string): string;
}

function rulesFor(options: RedactOptions): Rules {
  const names = new Set<string>(SECRET_FIELDS.map(fieldName));
  if (!options.personalData) for (const name of PERSONAL_DATA_FIELDS) names.add(fieldName(name));
  return {
    names,
    shallow: new Set(SHALLOW_SECRET_FIELDS.map(fieldName)),
    scrub: (text) => scrubText(text, options),
  };
}

function isPlainOrInstance(value: object): boolean {
  // Values that serialise themselves (Date, Buffer, URL, ApiKey) or to `{}` (Map, Set) are left to JSON.
  return (
    typeof (value as { toJSON?: unknown }).toJSON !== "function" &&
    !ArrayBuffer.isView(value) &&
    !(value instanceof Map) &&
    !(value instanceof Set)
  );
}

/**
 * A copy of `value` with every secret (and, unless kept, personal) field censored and recognisable secret values
 * scrubbed from strings. Errors become pino's serialised form (type, message, stack, own fields), redacted too.
 * Unchanged parts are returned as they are, so a clean object costs one walk and no copy.
 */
function redactValue(value: unknown, depth: number, rules: Rules, ancestors: Set<object>): unknown {
  if (typeof value === "string") return rules.scrub(value);
  if (value === null || typeof value !== "object") return value;
  // A cycle: the copy must not point back into the unredacted original.
  if (ancestors.has(value)) return "[Circular]";
  if (depth > MAX_DEPTH) return CENSOR;
  let source: object = value;
  if (value instanceof Error) source = { ...stdSerializers.err(value) };
  else if (!isPlainOrInstance(value)) return value;
  ancestors.add(value);
  try {
    if (Array.isArray(source)) {
      let copy: unknown[] | null = null;
      source.forEach((item, i) => {
        const next = redactValue(item, depth + 1, rules, ancestors);
        if (next !== item) {
          copy ??= [...(source as unknown[])];
          copy[i] = next;
        }
      });
      return copy ?? source;
    }
    let copy: Record<string, unknown> | null = source === value ? null : (source as Record<string, unknown>);
    for (const [key, item] of Object.entries(source)) {
      const name = fieldName(key);
      let next: unknown;
      if (
        item !== undefined &&
        item !== null &&
        (rules.names.has(name) || (depth <= 1 && rules.shallow.has(name)))
      ) {
        next = CENSOR;
      } else {
        next = redactValue(item, depth + 1, rules, ancestors);
      }
      if (next !== item) {
        copy ??= { ...(source as Record<string, unknown>) };
        copy[key] = next;
      }
    }
    return copy ?? source;
  } finally {
    ancestors.delete(value);
  }
}

/** `value` as the logger writes it: secrets (and personal data unless `personalData`) censored at any depth. */
export function redact<T>(value: T, options: RedactOptions = {}): T {
  return redactValue(value, 0, rulesFor(options), new Set()) as T;
}

export interface LoggerConfig {
  level: string;
  /** Keep personal data in logs (for local debugging only). */
  logPersonalData?: boolean;
  name?: string;
  /** `pretty`: one readable line per entry for a terminal (log-pretty.ts); default JSON lines. */
  format?: "json" | "pretty";
}

export function createLogger(config: LoggerConfig, destination?: DestinationStream): Logger {
  const rules = rulesFor({ personalData: config.logPersonalData ?? false });
  const clean = (value: unknown) => redactValue(value, 0, rules, new Set());
  const options: LoggerOptions = {
    level: config.level,
    name: config.name ?? "order-desk",
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      // Runs on each line's fields before they are serialised (errors included: they are serialised here).
      log: (object) => clean(object) as Record<string, unknown>,
    },
    serializers: {
      // `err` was serialised and redacted by the formatter above; this covers any path that skipped it.
      err: (value: unknown) => (value instanceof Error ? clean(value) : value),
    },
    hooks: {
      // The message string too: a key or token pasted into a message is scrubbed.
      logMethod(args, method) {
        // `logger.error(error)`: pino would take the message from the error itself, unscrubbed.
        if (args[0] instanceof Error && typeof args[1] !== "string") {
          (args as unknown[]).splice(1, 0, args[0].message);
        }
        for (let i = 0; i < args.length; i++) {
          const arg = args[i];
          if (typeof arg === "string") (args as unknown[])[i] = rules.scrub(arg);
        }
        return method.apply(this, args);
      },
    },
  };
  if (destination) return pino(options, destination);
  return config.format === "pretty" ? pino(options, prettyStream(process.stdout)) : pino(options);
}

export const silentLogger: Logger = pino({ level: "silent" });
