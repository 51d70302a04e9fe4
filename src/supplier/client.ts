/**
 * The Order Placement API client: `POST {base}/orders/create` over an injected undici dispatcher (keep-alive),
 * with one hard deadline per attempt (connection, headers and body: `endpoint.ts`), caller cancellation, retries
 * per `retry.ts`, and one response→outcome mapping (`outcome.ts`). Before any byte leaves the process it checks
 * the key's shape and environment against the target, and the request against the supplier's rules and our
 * size limits.
 */
import { setTimeout as delay } from "node:timers/promises";
import pino, { type Logger } from "pino";
import { Agent, type Dispatcher } from "undici";
import { CreateOrderEndpoint, type RequestHeaders } from "./endpoint.ts";
import {
  DuplicateOrderError,
  LocalValidationError,
  SupplierServerError,
  SupplierUnavailableError,
} from "./errors.ts";
import {
  assertKeyMatchesEnvironment,
  type ParsedApiKey,
  type SupplierEnvironment,
  scrubApiKey,
} from "./keys.ts";
import { interpretResponse } from "./outcome.ts";
import { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy } from "./retry.ts";
import { checkOrderRequest, ROOT_PATH } from "./rules.ts";
import { type CreateOrderRequest, type CreateOrderRequestInput, MAX_BODY_BYTES } from "./schema.ts";

export const DEFAULT_TIMEOUT_MS = 15_000;

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

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, signal ? { signal } : {});
}

export class SupplierClient {
  readonly environment: SupplierEnvironment;
  readonly endpoint: URL;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly ordersCreate: CreateOrderEndpoint;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly userAgent: string;
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
    this.environment = options.environment;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        // undici 8 would negotiate HTTP/2 with a TLS supplier that offers it: every placement on one multiplexed
        // connection, a change of behaviour (timeouts, a stream reset instead of a closed socket) to take on
        // purpose and measure, not by a library upgrade. HTTP/1.1 as before.
        allowH2: false,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        connect: { timeout: Math.min(10_000, this.timeoutMs) },
      });
    this.ordersCreate = new CreateOrderEndpoint(this.dispatcher, this.endpoint, this.timeoutMs);
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
      const result = await this.ordersCreate.attempt(body, headers, apiKey, signal);
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
      // `last.message` is scrubbed already (outcome.ts, endpoint.ts); again costs nothing on this path.
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

  /** Closes the connection pool if the client created it. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}
