/**
 * `order-desk place --file order.json [--base-url URL] [--api-key-env NAME]`
 *
 * Places one order from a JSON file and prints exactly one JSON line on stdout. Exit codes:
 * 0 placed (also when an earlier attempt placed it: `"placedEarlier":true`), 2 rejected (bad file, local or supplier
 * validation, duplicate, invalid payload), 3 unauthorized or key problem (missing, malformed, wrong environment),
 * 4 supplier unavailable after retries, 1 anything else (configuration, protocol error, abort).
 * Configuration comes from the `env` argument, never from `process.env` directly.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Logger } from "pino";
import type { Dispatcher } from "undici";
import { ConfigError, loadSupplierTarget, type SupplierTarget } from "../config.ts";
import { SupplierClient } from "../supplier/client.ts";
import { LocalValidationError, SupplierError } from "../supplier/errors.ts";
import { scrubApiKey } from "../supplier/keys.ts";
import type { RetryPolicy } from "../supplier/retry.ts";
import { checkOrderRequest } from "../supplier/rules.ts";
import { type CommandIo, parseCommandArgs } from "./args.ts";

export interface PlaceIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

/** Injection points for tests and for the composition root. */
export interface PlaceDeps {
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  signal?: AbortSignal;
  logger?: Logger;
  /** Directory relative file paths are resolved against; default `process.cwd()`. */
  cwd?: string;
}

export const EXIT = { placed: 0, failed: 1, rejected: 2, unauthorized: 3, unavailable: 4 } as const;

export const PLACE_USAGE = `Usage: order-desk place --file order.json [--base-url URL] [--api-key-env NAME]

Places one order on the supplier's Order Placement API and prints one JSON line.
  --file, -f       the order request (JSON, the supplier's createOrderRequest shape)
  --base-url       the API root (default: $SUPPLIER_BASE_URL)
  --api-key-env    the environment variable holding the API key (default: SUPPLIER_API_KEY)
Environment: SUPPLIER_BASE_URL, SUPPLIER_ENVIRONMENT=test|live (default test), SUPPLIER_API_KEY.
Exit codes: 0 placed, 2 rejected, 3 unauthorized/key problem, 4 supplier unavailable, 1 other.
`;

const EXIT_BY_CODE: Record<SupplierError["code"], number> = {
  LOCAL_VALIDATION_FAILED: EXIT.rejected,
  VALIDATION_FAILED: EXIT.rejected,
  DUPLICATE_ORDER: EXIT.rejected,
  INVALID_PAYLOAD: EXIT.rejected,
  UNAUTHORIZED: EXIT.unauthorized,
  KEY_ENVIRONMENT_MISMATCH: EXIT.unauthorized,
  MALFORMED_API_KEY: EXIT.unauthorized,
  SUPPLIER_UNAVAILABLE: EXIT.unavailable,
  RATE_LIMITED: EXIT.unavailable,
  SERVER_ERROR: EXIT.failed,
  PROTOCOL_ERROR: EXIT.failed,
  INVALID_EVENT: EXIT.failed,
};

class CliProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const SPEC = {
  name: "place",
  usage: PLACE_USAGE,
  options: {
    file: { type: "string", short: "f" },
    "base-url": { type: "string" },
    "api-key-env": { type: "string" },
  },
  // Like every other outcome of `place`: one JSON line on stdout.
  usageError: (message: string, io: CommandIo) =>
    io.stdout.write(
      `${JSON.stringify({ ok: false, code: "USAGE", message: `${message}. Run 'order-desk place --help'.` })}\n`,
    ),
} as const;

async function readOrderFile(file: string, cwd: string): Promise<unknown> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "does not exist"
        : code === "EISDIR"
          ? "is a directory"
          : `cannot be read (${code})`;
    throw new CliProblem("INVALID_FILE", `The order file ${path} ${why}.`, EXIT.rejected);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliProblem(
      "INVALID_FILE",
      `The order file ${path} is not valid JSON: ${(error as Error).message}`,
      EXIT.rejected,
    );
  }
}

export async function runPlace(
  argv: string[],
  env: Record<string, string | undefined>,
  io: PlaceIo,
  deps: PlaceDeps = {},
): Promise<number> {
  let apiKey = "";
  const print = (value: Record<string, unknown>) => {
    const line = JSON.stringify(value);
    io.stdout.write(`${apiKey ? scrubApiKey(line, apiKey) : line}\n`);
  };

  const parsed = parseCommandArgs(SPEC, argv, io);
  if (!parsed.ok) return parsed.exitCode;
  const args = parsed.values;
  let client: SupplierClient | undefined;
  try {
    if (!args.file)
      throw new CliProblem("USAGE", "Missing --file: the order request to place.", EXIT.rejected);
    const order = await readOrderFile(args.file, deps.cwd ?? process.cwd());

    let target: SupplierTarget;
    try {
      target = loadSupplierTarget(env, { baseUrl: args["base-url"] });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new CliProblem("CONFIG", error.problems.join("; "), EXIT.failed);
    }
    const keyVariable = args["api-key-env"] ?? "SUPPLIER_API_KEY";
    apiKey = env[keyVariable] ?? "";
    if (!apiKey) {
      throw new CliProblem("MISSING_API_KEY", `No API key: set ${keyVariable}.`, EXIT.unauthorized);
    }

    client = new SupplierClient({
      baseUrl: target.baseUrl,
      environment: target.environment,
      timeoutMs: deps.timeoutMs ?? target.timeoutMs,
      retry: { maxAttempts: target.maxAttempts, ...deps.retry },
      ...(deps.dispatcher && { dispatcher: deps.dispatcher }),
      ...(deps.sleep && { sleep: deps.sleep }),
      ...(deps.random && { random: deps.random }),
      ...(deps.logger && { logger: deps.logger }),
    });
    // Key shape and environment are checked by the client before anything is sent.
    const checked = checkOrderRequest(order);
    if (!checked.ok) throw new LocalValidationError(checked.details);
    const result = await client.createOrder(checked.value, {
      apiKey,
      ...(deps.signal && { signal: deps.signal }),
    });
    print(
      result.placedEarlier
        ? {
            ok: true,
            correlationId: null,
            externalDocumentNumber: result.externalDocumentNumber,
            placedEarlier: true,
          }
        : {
            ok: true,
            correlationId: result.correlationId,
            externalDocumentNumber: result.externalDocumentNumber,
          },
    );
    return EXIT.placed;
  } catch (error) {
    if (error instanceof CliProblem) {
      print({ ok: false, code: error.code, message: error.message });
      return error.exitCode;
    }
    if (error instanceof SupplierError) {
      const json = error.toJSON();
      delete json.name;
      if (json.correlationId === null) delete json.correlationId;
      print({ ok: false, ...json });
      return EXIT_BY_CODE[error.code];
    }
    if (deps.signal?.aborted) {
      print({
        ok: false,
        code: "ABORTED",
        message: "Cancelled before the supplier answered; the order may or may not be placed.",
      });
      return EXIT.failed;
    }
    print({ ok: false, code: "UNEXPECTED", message: (error as Error)?.message ?? String(error) });
    return EXIT.failed;
  } finally {
    await client?.close();
  }
}
