/**
 * The Order Placement API client: `POST {base}/orders/create` over an injected undici dispatcher (keep-alive),
 * with one hard deadline per attempt (connection, headers and body), caller cancellation, retries per
 * `retry.ts`, and one response→outcome mapping (`outcome.ts`). Before any byte leaves the process it checks
 * the key's shape and environment against the target, and the request against the supplier's rules and our
 * size limits.
 */
import { setTimeout as delay } from "node:timers/promises";
import pino, { type Logger } from "pino";
import { Agent, type Dispatcher } from "undici";
import {
  DuplicateOrderError,
  LocalValidationError,
  ProtocolError,
  SupplierServerError,
  SupplierUnavailableError,
} from "./errors.ts";
import {
  assertKeyMatchesEnvironment,
  type ParsedApiKey,
  type SupplierEnvironment,
  scrubApiKey,
} from "./keys.ts";
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

export interface SupplierClientOptions {
  /** API root; `/orders/create` is appended. */
  baseUrl: string | URL;
  /** What the base URL is. A key from the other environment is refused before any request. */
  environment: SupplierEnvironment;
  /** Shared connection pool; by default the client owns a keep-alive Agent (closed by `close()`). */
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
  /**
   * Hard limit per attempt, from the call to the last body byte: waiting for a connection, connecting, sending,
   * headers and body. Default 15 s.
   */
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

/** The request headers for one key: built when the key is first checked, then reused by every call with it. */
type RequestHeaders = Record<string, string>;

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
  private readonly origin: string;
  private readonly path: string;
  private checkedKey: { value: string; parsed: ParsedApiKey; headers: RequestHeaders } | null = null;

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
    this.origin = this.endpoint.origin;
    this.path = this.endpoint.pathname;
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
    const { parsed: key, headers } = this.checkKey(apiKey);
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
      const result = await this.attempt(body, headers, apiKey, signal);
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
      // `last.message` is scrubbed already (outcome.ts, sanitizeCause); again costs nothing on this path.
      throw new SupplierUnavailableError(
        `The supplier is unavailable: ${attempt} attempt(s) failed, the last with: ${scrubApiKey(last.message, apiKey)} Try again later.`,
        { reason: "retries_exhausted", attempts: attempt, cause: last },
      );
    }
  }

  /** One log line with the call's context first, as a child logger would have written it. */
  private log(level: "info" | "warn", context: CallContext, fields: object, message: string): void {
    if (this.logger.isLevelEnabled(level)) this.logger[level]({ ...context, ...fields }, message);
  }

  /**
   * The key's shape and environment, and the request headers carrying it; the same key comes with every call, so
   * both are kept.
   */
  private checkKey(apiKey: string): { parsed: ParsedApiKey; headers: RequestHeaders } {
    if (this.checkedKey?.value !== apiKey) {
      this.checkedKey = {
        value: apiKey,
        parsed: assertKeyMatchesEnvironment(apiKey, this.environment),
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "user-agent": this.userAgent,
          "x-api-key": apiKey,
        },
      };
    }
    return this.checkedKey;
  }

  /**
   * One HTTP exchange under one deadline. Transport failures and the deadline become a result; the caller's abort
   * is rethrown as is (its `reason`).
   *
   * The deadline is a single timer per attempt, armed before the request and cleared once the body is read (or
   * the attempt fails): it covers waiting for a connection, connecting, sending, the headers and the whole body,
   * however slowly the bytes drip. When it fires it aborts the attempt's controller (undici then tears down the
   * request or the body) and rejects the pending request itself, since undici only notices an abort once the
   * request is on a connection. undici's own `headersTimeout` / `bodyTimeout` are off (0): the body timeout
   * restarts with every chunk, and the deadline already bounds both. No `AbortSignal.timeout` / `AbortSignal.any`:
   * they cost more, and on Node 20 a timeout signal only a composite holds can be collected before it fires.
   * The promise and its callback below replace undici's own promise wrapper (`request()` without a callback), so
   * the timer and the controller are all an attempt adds.
   */
  private async attempt(
    body: string,
    headers: RequestHeaders,
    apiKey: string,
    signal: AbortSignal | undefined,
  ): Promise<AttemptResult> {
    const control = new AttemptControl();
    const timer = setTimeout(expire, this.timeoutMs, control, this.timeoutMs);
    signal?.addEventListener("abort", control);
    let answered = false;
    try {
      const response = await new Promise<Dispatcher.ResponseData>((resolve, reject) => {
        control.reject = reject;
        this.dispatcher.request(
          {
            origin: this.origin,
            path: this.path,
            method: "POST",
            headers,
            body,
            signal: control.signal,
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          (error, data) => (error ? reject(error) : resolve(data)),
        );
      });
      answered = true;
      const text = await readCapped(response, MAX_RESPONSE_BYTES);
      return { kind: "response", status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof ProtocolError) throw error;
      if (control.signal.aborted) {
        // The deadline. Whether the request had left by then cannot be told from here: count it as maybe
        // processed, like any timeout (a retry answering DUPLICATE_ORDER then means this attempt placed it).
        return {
          kind: "failed",
          maybeProcessed: true,
          error: new SupplierUnavailableError(
            `The supplier did not answer within ${this.timeoutMs} ms${answered ? " (while reading the body)" : ""}.`,
            { reason: "timeout", attempts: 1, cause: sanitizeCause(control.signal.reason, apiKey) },
          ),
        };
      }
      const code = errorCode(error);
      const notSent = code !== undefined && NOT_SENT_CODES.has(code);
      return {
        kind: "failed",
        maybeProcessed: !notSent,
        error: new SupplierUnavailableError(
          `Could not reach the supplier at ${this.origin}: ${code ?? scrubApiKey(String((error as Error)?.message ?? "connection failed"), apiKey)}.`,
          { reason: "network", attempts: 1, cause: sanitizeCause(error, apiKey) },
        ),
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", control);
    }
  }

  /** Closes the connection pool if the client created it. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/**
 * One attempt's abort controller. It is also the listener that forwards the caller's abort (`handleEvent`, so no
 * closure per attempt), and it can reject the attempt's pending request (`reject`).
 */
class AttemptControl extends AbortController {
  reject: ((reason: unknown) => void) | null = null;

  /** Aborts the request (or its body) and settles the request promise if it is still pending. */
  stop(reason: unknown): void {
    this.abort(reason);
    this.reject?.(reason);
  }

  /** The caller's signal aborted. */
  handleEvent(event: Event): void {
    this.stop((event.target as AbortSignal).reason);
  }
}

/** The attempt's deadline fired (a module-level function: the timer carries its arguments, no closure). */
function expire(control: AttemptControl, timeoutMs: number): void {
  control.stop(new AttemptDeadlineError(timeoutMs));
}

/** The attempt's deadline: becomes a SupplierUnavailableError with reason "timeout". */
class AttemptDeadlineError extends Error {
  readonly code = "ATTEMPT_DEADLINE";
  constructor(timeoutMs: number) {
    super(`the attempt did not complete (connection, headers and body) within ${timeoutMs} ms`);
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
 * Reads the body, refusing more than `limit` bytes (and releasing the connection either way). A body that
 * announces its length (the API's small envelope) is read in one go — undici fails it if fewer or more bytes
 * come; one of unknown length is counted as it streams. The attempt's deadline destroys the body, which ends
 * either read with the deadline's error.
 */
async function readCapped(response: Dispatcher.ResponseData, limit: number): Promise<string> {
  const { body, statusCode: status } = response;
  const declared = contentLength(response.headers);
  if (declared !== null) {
    if (declared > limit) {
      body.destroy();
      throw tooLarge(status, limit);
    }
    return Buffer.from(await body.arrayBuffer()).toString("utf8");
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
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Keeps what helps debugging (name, message, code) and drops the rest: transport errors can reference sockets and
 * request state we must not carry around, let alone log. The message is scrubbed of the key.
 */
function sanitizeCause(error: unknown, apiKey: string): Error {
  if (!(error instanceof Error)) return new Error(scrubApiKey(String(error), apiKey));
  const copy = new Error(scrubApiKey(error.message, apiKey));
  copy.name = error.name;
  const code = errorCode(error);
  if (code !== undefined) (copy as Error & { code?: string }).code = code;
  return copy;
}
