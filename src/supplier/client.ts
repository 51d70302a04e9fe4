/**
 * The Order Placement API client: `POST {base}/orders/create` over an injected undici dispatcher (keep-alive),
 * with a per-attempt timeout, caller cancellation, retries per `retry.ts`, and one response→outcome mapping
 * (`outcome.ts`). Before any byte leaves the process it checks the key's shape and environment against the
 * target, and the request against the supplier's rules and our size limits.
 */
import { setTimeout as delay } from "node:timers/promises";
import pino, { type Logger } from "pino";
import { Agent, type Dispatcher, request } from "undici";
import {
  DuplicateOrderError,
  LocalValidationError,
  ProtocolError,
  SupplierServerError,
  SupplierUnavailableError,
} from "./errors.ts";
import { assertKeyMatchesEnvironment, type ParsedApiKey, type SupplierEnvironment } from "./keys.ts";
import { interpretResponse, type ResponseHeaders } from "./outcome.ts";
import { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy } from "./retry.ts";
import { checkOrderRequest, ROOT_PATH } from "./rules.ts";
import { type CreateOrderRequest, type CreateOrderRequestInput, MAX_BODY_BYTES } from "./schema.ts";

export const DEFAULT_TIMEOUT_MS = 15_000;
/** A create-order response is a small envelope; anything bigger is not the API. */
const MAX_RESPONSE_BYTES = 1_048_576;
/** Connection errors that prove the request never reached the supplier. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const TIMEOUT_CODES: ReadonlySet<string> = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

export interface SupplierClientOptions {
  /** API root; `/orders/create` is appended. */
  baseUrl: string | URL;
  /** What the base URL is. A key from the other environment is refused before any request. */
  environment: SupplierEnvironment;
  /** Shared connection pool; by default the client owns a keep-alive Agent (closed by `close()`). */
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
  /** Per attempt, headers and body included. Default 15 s. */
  timeoutMs?: number;
  /** Injected for tests: wait between attempts (must reject when `signal` aborts). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected for tests: jitter source in [0, 1). */
  random?: () => number;
  /** Injected for tests: wall clock in ms (for `Retry-After` dates). */
  now?: () => number;
  logger?: Logger;
  userAgent?: string;
}

export interface CreateOrderOptions {
  apiKey: string;
  signal?: AbortSignal;
}

export type CreateOrderResult =
  | {
      placedEarlier: false;
      correlationId: string;
      /** The supplier's `meta.timestamp`. */
      timestamp: string;
      externalDocumentNumber: string;
      attempts: number;
    }
  | {
      /** A retry came back DUPLICATE_ORDER after an attempt that may have been processed: that attempt placed it. */
      placedEarlier: true;
      correlationId: null;
      externalDocumentNumber: string;
      attempts: number;
    };

interface CallContext {
  externalDocumentNumber: string;
  apiKey: string;
  environment: SupplierEnvironment;
}

type AttemptResult =
  | { kind: "response"; status: number; headers: ResponseHeaders; text: string }
  | { kind: "failed"; error: SupplierUnavailableError; maybeProcessed: boolean };

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, signal ? { signal } : {});
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export class SupplierClient {
  readonly environment: SupplierEnvironment;
  readonly endpoint: URL;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly userAgent: string;
  private checkedKey: { value: string; parsed: ParsedApiKey } | null = null;

  constructor(options: SupplierClientOptions) {
    const base = new URL(String(options.baseUrl));
    if (base.protocol !== "https:" && base.protocol !== "http:") {
      throw new TypeError(`The supplier base URL must be http(s), got ${base.protocol}`);
    }
    if (options.environment !== "live" && options.environment !== "test") {
      throw new TypeError(
        `The supplier environment must be "live" or "test", got ${String(options.environment)}`,
      );
    }
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    this.endpoint = new URL("orders/create", base);
    this.environment = options.environment;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        connect: { timeout: Math.min(10_000, this.timeoutMs) },
      });
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? pino({ level: "silent" });
    this.userAgent = options.userAgent ?? "order-desk";
  }

  /**
   * Places one order. Resolves with the supplier's correlationId, or `placedEarlier` when a retry proved an
   * earlier attempt got through. Rejects with a `SupplierError` subclass, or with the signal's reason when the
   * caller aborts.
   */
  async createOrder(
    input: CreateOrderRequest | CreateOrderRequestInput,
    options: CreateOrderOptions,
  ): Promise<CreateOrderResult> {
    const { apiKey, signal } = options;
    const key = this.checkKey(apiKey);
    const checked = checkOrderRequest(input);
    if (!checked.ok) throw new LocalValidationError(checked.details);
    const body = JSON.stringify(checked.value);
    const size = Buffer.byteLength(body);
    if (size > MAX_BODY_BYTES) {
      throw new LocalValidationError({
        [ROOT_PATH]: [`The request is ${size} bytes; the limit is ${MAX_BODY_BYTES} bytes. Split the order.`],
      });
    }
    const externalDocumentNumber = checked.value.externalDocumentNumber;
    // The call's context goes into each line it writes (see `log`): cheaper than a child logger per call.
    const context: CallContext = {
      externalDocumentNumber,
      apiKey: key.redacted,
      environment: this.environment,
    };
    let maybePlaced = false;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const result = await this.attempt(body, apiKey, signal);
      let error: unknown;
      if (result.kind === "response") {
        const outcome = interpretResponse(result.status, result.headers, result.text, {
          externalDocumentNumber,
          apiKey,
          nowMs: this.now(),
        });
        if (outcome.ok) {
          this.log(
            "info",
            context,
            { correlationId: outcome.correlationId, attempt, status: result.status },
            "order placed",
          );
          return {
            placedEarlier: false,
            correlationId: outcome.correlationId,
            timestamp: outcome.timestamp,
            externalDocumentNumber,
            attempts: attempt,
          };
        }
        error = outcome.error;
        if (error instanceof DuplicateOrderError && maybePlaced) {
          this.log(
            "warn",
            context,
            { attempt },
            "retry answered DUPLICATE_ORDER after an uncertain attempt: treating as placed earlier",
          );
          return { placedEarlier: true, correlationId: null, externalDocumentNumber, attempts: attempt };
        }
        // A 5xx or INTERNAL_SERVER_ERROR may have come after the order was recorded.
        if (error instanceof SupplierServerError) maybePlaced = true;
      } else {
        error = result.error;
        if (result.maybeProcessed) maybePlaced = true;
      }

      const decision = decideRetry(attempt, error, this.policy, this.random);
      const code = (error as { code?: string }).code;
      if (decision.retry) {
        this.log(
          "warn",
          context,
          { attempt, code, delayMs: decision.delayMs },
          "create-order attempt failed; retrying",
        );
        try {
          await this.sleep(decision.delayMs, signal);
        } catch (sleepError) {
          if (signal?.aborted) throw signal.reason;
          throw sleepError;
        }
        continue;
      }
      this.log("warn", context, { attempt, code, reason: decision.reason }, "create-order failed");
      if (decision.reason === "not_retryable") throw error;
      const last = error as Error;
      if (decision.reason === "retry_after_too_long") {
        throw new SupplierUnavailableError(
          `The supplier asked us to wait ${Math.ceil((decision.retryAfterMs ?? 0) / 1000)} s before retrying; try again later.`,
          {
            reason: "retry_after_too_long",
            attempts: attempt,
            retryAfterMs: decision.retryAfterMs ?? null,
            cause: last,
          },
        );
      }
      throw new SupplierUnavailableError(
        `The supplier is unavailable: ${attempt} attempt(s) failed, the last with: ${last.message} Try again later.`,
        { reason: "retries_exhausted", attempts: attempt, cause: last },
      );
    }
  }

  /** One log line with the call's context first, as a child logger would have written it. */
  private log(level: "info" | "warn", context: CallContext, fields: object, message: string): void {
    if (this.logger.isLevelEnabled(level)) this.logger[level]({ ...context, ...fields }, message);
  }

  /** The key's shape and environment; the same key comes with every call, so its check is kept. */
  private checkKey(apiKey: string): ParsedApiKey {
    if (this.checkedKey?.value !== apiKey) {
      this.checkedKey = { value: apiKey, parsed: assertKeyMatchesEnvironment(apiKey, this.environment) };
    }
    return this.checkedKey.parsed;
  }

  /**
   * One HTTP exchange. Transport failures become a result; the caller's abort is rethrown as is.
   *
   * The attempt's time limit is undici's own: the connection (the Agent's connect timeout), the headers
   * (`headersTimeout`) and the body (`bodyTimeout` between chunks, plus a deadline checked as it arrives). No
   * timeout signal is made per attempt (`AbortSignal.timeout` + `AbortSignal.any` cost more than the rest of
   * the client's own work); the caller's signal, when there is one, is handed to undici as it is.
   */
  private async attempt(
    body: string,
    apiKey: string,
    signal: AbortSignal | undefined,
  ): Promise<AttemptResult> {
    const deadline = performance.now() + this.timeoutMs;
    let sent = false;
    try {
      const response = await request(this.endpoint, {
        method: "POST",
        dispatcher: this.dispatcher,
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "user-agent": this.userAgent,
          "x-api-key": apiKey,
        },
        body,
        ...(signal ? { signal } : {}),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      sent = true;
      const text = await readCapped(response, MAX_RESPONSE_BYTES, deadline);
      return { kind: "response", status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof ProtocolError) throw error;
      const code = errorCode(error);
      if (error instanceof AttemptDeadlineError || (code !== undefined && TIMEOUT_CODES.has(code))) {
        return {
          kind: "failed",
          maybeProcessed: true,
          error: new SupplierUnavailableError(
            `The supplier did not answer within ${this.timeoutMs} ms${sent ? " (while reading the body)" : ""}.`,
            { reason: "timeout", attempts: 1, cause: sanitizeCause(error) },
          ),
        };
      }
      const notSent = code !== undefined && NOT_SENT_CODES.has(code);
      return {
        kind: "failed",
        maybeProcessed: !notSent,
        error: new SupplierUnavailableError(
          `Could not reach the supplier at ${this.endpoint.origin}: ${code ?? (error as Error)?.message ?? "connection failed"}.`,
          { reason: "network", attempts: 1, cause: sanitizeCause(error) },
        ),
      };
    }
  }

  /** Closes the connection pool if the client created it. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/** The body took longer than the attempt's time limit (reported like undici's own timeouts). */
class AttemptDeadlineError extends Error {
  readonly code = "ATTEMPT_DEADLINE";
  constructor() {
    super("the response body did not arrive within the attempt's time limit");
    this.name = "AttemptDeadlineError";
  }
}

function tooLarge(status: number, limit: number): ProtocolError {
  return new ProtocolError(
    `The supplier's response (HTTP ${status}) exceeds ${limit} bytes; it is not the API's envelope.`,
    { httpStatus: status },
  );
}

/** The declared body length, or null when the response does not say (chunked) or says something odd. */
function contentLength(headers: ResponseHeaders): number | null {
  const value = headers["content-length"];
  if (typeof value !== "string" || !/^\d{1,15}$/.test(value)) return null;
  return Number(value);
}

/**
 * Reads the body, refusing more than `limit` bytes (and releasing the connection either way) and giving up at
 * `deadline` (a performance.now() time). A body that announces its length (the API's small envelope) is read
 * in one go — undici fails it if fewer or more bytes come; one of unknown length is counted as it streams.
 */
async function readCapped(
  response: Dispatcher.ResponseData,
  limit: number,
  deadline: number,
): Promise<string> {
  const { body, statusCode: status } = response;
  const declared = contentLength(response.headers);
  if (declared !== null) {
    if (declared > limit) {
      body.destroy();
      throw tooLarge(status, limit);
    }
    const bytes = Buffer.from(await body.arrayBuffer());
    if (performance.now() > deadline) throw new AttemptDeadlineError();
    return bytes.toString("utf8");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      body.destroy();
      throw tooLarge(status, limit);
    }
    if (performance.now() > deadline) {
      body.destroy();
      throw new AttemptDeadlineError();
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Keeps what helps debugging (name, message, code) and drops the rest: transport errors can reference sockets and
 * request state we must not carry around, let alone log.
 */
function sanitizeCause(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const copy = new Error(error.message);
  copy.name = error.name;
  const code = errorCode(error);
  if (code !== undefined) (copy as Error & { code?: string }).code = code;
  return copy;
}
