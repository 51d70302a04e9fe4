/**
 * `order-desk sandbox`: runs the supplier sandbox until SIGINT/SIGTERM. Prints `sandbox listening on URL` and
 * the test keys it accepts (a generated key or webhook secret in full, since the user needs it; given ones
 * redacted, since the user has them). Returns the exit code: 0 after a clean stop, 2 for bad flags, 1 when the
 * sandbox cannot start.
 */
import { parseArgs } from "node:util";
import { destination, type Logger, pino } from "pino";
import { redactApiKey } from "../supplier/keys.ts";
import { describeDialect, SANDBOX_DIALECTS, type SandboxDialect } from "./dialect.ts";
import { DEFAULT_SLIP_DAYS } from "./faults.ts";
import { type SandboxOptions, startSandbox } from "./sandbox.ts";

export interface SandboxIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  /** Where SIGINT/SIGTERM come from; default `process`. */
  signals?: {
    once(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
    off?(event: string, listener: () => void): unknown;
  };
  /** Default: pino to stderr at `--log-level`. */
  logger?: Logger;
  /** Called once the sandbox listens (tests, embedding). */
  onReady?: (handle: Awaited<ReturnType<typeof startSandbox>>) => void;
  /** Opens the database of `--data-dir` (the composition root hands in the project store's opener). */
  openDatabase?: SandboxOptions["openDatabase"];
}

export const SANDBOX_USAGE = `Usage: order-desk sandbox [options]

Runs a local, spec-faithful supplier Order Placement API (test environment) with simulated fulfilment and
signed webhook events. See docs/sandbox.md.

  --port N                 port to listen on (default 4010; 0 picks a free one)
  --host HOST              address to bind (default 127.0.0.1)
  --api-key KEY            accepted test key, or CUSTOMER:KEY (repeatable; default: one generated ods_test_… key)
  --webhook-url URL        POST every order event here
  --webhook-secret SECRET  signing secret (repeatable while rotating; default: one generated): whsec_… for the
                           default dialect, 16+ characters without whitespace for alt
  --dialect NAME           default (our events, Standard Webhooks signatures) or alt (another supplier's shape,
                           HMAC-SHA256 in X-Supplier-Signature); see docs/sandbox.md
  --speed N                time compression of fulfilment and retries (default 1 = realistic; 600 = seconds)
  --seed N                 makes carriers, tracking numbers, parcel splits and faults repeatable
  --fail-rate R            share of create calls (0-1) answered INTERNAL_SERVER_ERROR
  --latency-ms N           delay before answering each create call
  --late MATCH             the order's estimated delivery slips after shipping (repeatable): MATCH is an item
                           number on one of its lines, its externalDocumentNumber or its customerReference
  --slip-days N            business days a --late estimate slips by (default 3)
  --recovers               a --late estimate later comes back to the first one
  --stall MATCH            the order is accepted, then never shipped (repeatable; MATCH as for --late)
  --stall-silent MATCH     the order is accepted, then not a single event is sent (repeatable)
  --duplicate-rate R       share of events (0-1) delivered twice
  --reorder                deliver adjacent events of an order swapped (--reorder-rate R for a share)
  --reorder-rate R         share of adjacent event pairs (0-1) delivered swapped
  --delivery-timeout-ms N  per webhook attempt (default 10000)
  --data-dir DIR           keep orders on disk (embedded PostgreSQL); they survive restarts
  --max-orders N           without --data-dir: orders kept in memory (default 10000)
  --log-level LEVEL        fatal|error|warn|info|debug|trace|silent (default info; logs go to stderr)
  --help                   this text
`;

/** The flags, declared once: the command line checks them before the sandbox is loaded (src/cli/sandbox.ts). */
export const SANDBOX_OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  "api-key": { type: "string", multiple: true },
  "webhook-url": { type: "string" },
  "webhook-secret": { type: "string", multiple: true },
  dialect: { type: "string" },
  speed: { type: "string" },
  seed: { type: "string" },
  "fail-rate": { type: "string" },
  "latency-ms": { type: "string" },
  late: { type: "string", multiple: true },
  "slip-days": { type: "string" },
  recovers: { type: "boolean" },
  stall: { type: "string", multiple: true },
  "stall-silent": { type: "string", multiple: true },
  "duplicate-rate": { type: "string" },
  reorder: { type: "boolean" },
  "reorder-rate": { type: "string" },
  "delivery-timeout-ms": { type: "string" },
  "data-dir": { type: "string" },
  "max-orders": { type: "string" },
  "log-level": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const LOG_LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

type Parsed = { ok: true; options: SandboxOptions; logLevel: string } | { ok: false; problems: string[] };

function parseFlags(argv: string[]): Parsed | { ok: "help" } {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: SANDBOX_OPTIONS,
    }));
  } catch (error) {
    return { ok: false, problems: [(error as Error).message] };
  }
  if (values.help) return { ok: "help" };

  const problems: string[] = [];
  const text = (name: string) => values[name] as string | undefined;
  const number = (name: string, check: (n: number) => boolean, expected: string): number | undefined => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (raw.trim() === "" || !check(value)) {
      problems.push(`--${name} must be ${expected} (got "${raw}").`);
      return undefined;
    }
    return value;
  };
  const wholeAtLeast = (min: number) => (n: number) => Number.isInteger(n) && n >= min;
  const rate = (n: number) => n >= 0 && n <= 1;

  const options: SandboxOptions = { port: 4010, host: "127.0.0.1" };
  const port = number("port", (n) => wholeAtLeast(0)(n) && n <= 65535, "a port number from 0 to 65535");
  if (port !== undefined) options.port = port;
  if (text("host") !== undefined) options.host = text("host") as string;
  const keys = values["api-key"] as string[] | undefined;
  if (keys) options.apiKeys = keys;
  const webhookUrl = text("webhook-url");
  if (webhookUrl !== undefined) options.webhookUrl = webhookUrl;
  const secrets = values["webhook-secret"] as string[] | undefined;
  if (secrets) options.webhookSecret = secrets;
  const dialect = text("dialect");
  if (dialect !== undefined) {
    if ((SANDBOX_DIALECTS as readonly string[]).includes(dialect))
      options.dialect = dialect as SandboxDialect;
    else problems.push(`--dialect must be one of ${SANDBOX_DIALECTS.join(", ")} (got "${dialect}").`);
  }
  const speed = number("speed", (n) => Number.isFinite(n) && n > 0, "a number > 0, e.g. 600");
  if (speed !== undefined) options.speed = speed;
  if (text("seed") !== undefined) options.seed = text("seed") as string;
  const failRate = number("fail-rate", rate, "a share from 0 to 1");
  if (failRate !== undefined) options.failRate = failRate;
  const latency = number("latency-ms", wholeAtLeast(0), "whole milliseconds ≥ 0");
  if (latency !== undefined) options.latencyMs = latency;
  const matches = (name: string): string[] => {
    const given = (values[name] as string[] | undefined) ?? [];
    for (const match of given) {
      if (match.trim() === "") problems.push(`--${name} needs an item number, document number or reference.`);
    }
    return given.filter((match) => match.trim() !== "");
  };
  const late = matches("late");
  const slipDays = number(
    "slip-days",
    (n) => wholeAtLeast(1)(n) && n <= 60,
    "a whole number of business days from 1 to 60",
  );
  if ((slipDays !== undefined || values.recovers) && late.length === 0) {
    problems.push("--slip-days and --recovers apply to --late orders: name them with --late MATCH.");
  }
  if (late.length > 0) {
    options.late = late.map((match) => ({
      match,
      ...(slipDays !== undefined && { slipDays }),
      ...(values.recovers === true && { recovers: true }),
    }));
  }
  const stall = [
    ...matches("stall").map((match) => ({ match })),
    ...matches("stall-silent").map((match) => ({ match, silent: true })),
  ];
  if (stall.length > 0) options.stall = stall;
  const duplicateRate = number("duplicate-rate", rate, "a share from 0 to 1");
  if (duplicateRate !== undefined) options.duplicateRate = duplicateRate;
  const reorderRate = number("reorder-rate", rate, "a share from 0 to 1");
  if (reorderRate !== undefined) options.reorderRate = reorderRate;
  else if (values.reorder) options.reorderRate = 1;
  const timeout = number("delivery-timeout-ms", wholeAtLeast(1), "whole milliseconds ≥ 1");
  if (timeout !== undefined) options.deliveryTimeoutMs = timeout;
  if (text("data-dir") !== undefined) options.dataDir = text("data-dir") as string;
  const maxOrders = number("max-orders", wholeAtLeast(1), "a whole number ≥ 1");
  if (maxOrders !== undefined) options.maxOrders = maxOrders;
  if (maxOrders !== undefined && options.dataDir !== undefined) {
    problems.push("--max-orders applies to the in-memory store only; drop it or --data-dir.");
  }
  if (options.webhookSecret !== undefined && options.webhookUrl === undefined) {
    problems.push("--webhook-secret needs --webhook-url (where to deliver events).");
  }
  const logLevel = text("log-level") ?? "info";
  if (!LOG_LEVELS.has(logLevel)) problems.push(`--log-level must be one of ${[...LOG_LEVELS].join(", ")}.`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, options, logLevel };
}

export async function runSandbox(argv: string[], io: SandboxIo): Promise<number> {
  const parsed = parseFlags(argv);
  if (parsed.ok === "help") {
    io.stdout.write(SANDBOX_USAGE);
    return 0;
  }
  if (!parsed.ok) {
    io.stderr.write(
      `order-desk sandbox: ${parsed.problems.join("\n  ")}\n\nRun 'order-desk sandbox --help' for the options.\n`,
    );
    return 2;
  }
  const { options, logLevel } = parsed;
  const logger = io.logger ?? pino({ level: logLevel, base: { service: "sandbox" } }, destination(2));
  const givenKeys = options.apiKeys !== undefined;
  const givenSecret = options.webhookSecret !== undefined;

  let handle: Awaited<ReturnType<typeof startSandbox>>;
  try {
    handle = await startSandbox({
      ...options,
      logger,
      ...(io.openDatabase ? { openDatabase: io.openDatabase } : {}),
    });
  } catch (error) {
    io.stderr.write(`order-desk sandbox: could not start: ${(error as Error).message}\n`);
    return 1;
  }

  const lines = [`sandbox listening on ${handle.url}`];
  for (const { key, customer } of handle.keys) {
    lines.push(`accepted test API key (customer ${customer}): ${givenKeys ? redactApiKey(key) : key}`);
  }
  if (options.webhookUrl !== undefined) {
    lines.push(`webhooks: POST ${options.webhookUrl}, ${describeDialect(handle.dialect)}`);
    if (!givenSecret) lines.push(`webhook signing secret (generated): ${handle.webhookSecrets[0]}`);
  } else {
    lines.push("webhooks: none (--webhook-url not set); order progress: GET /_sandbox/orders");
  }
  lines.push(
    `speed ${handle.speed}x, seed ${handle.seed}, orders ${options.dataDir !== undefined ? `in ${options.dataDir}` : "in memory"}`,
  );
  const faults = handle.faults();
  for (const rule of faults.late) {
    lines.push(
      `late: ${rule.match} (estimate slips ${rule.slipDays ?? DEFAULT_SLIP_DAYS} business days${rule.recovers ? ", then recovers" : ""})`,
    );
  }
  for (const rule of faults.stall) {
    lines.push(
      `stalled: ${rule.match} (${rule.silent ? "accepted, then no event at all" : "accepted, never shipped"})`,
    );
  }
  io.stdout.write(`${lines.join("\n")}\n`);
  io.onReady?.(handle);

  const signals = io.signals ?? process;
  await new Promise<void>((resolve) => {
    const stop = () => {
      signals.off?.("SIGINT", stop);
      signals.off?.("SIGTERM", stop);
      resolve();
    };
    signals.once("SIGINT", stop);
    signals.once("SIGTERM", stop);
  });
  await handle.close();
  io.stdout.write("sandbox stopped\n");
  return 0;
}
