/**
 * One HTTP exchange with `POST {base}/orders/create` under one deadline; the client (client.ts) runs it once per
 * attempt. Apart from the retry loop because it is the hot path of a placement: one timer and one controller per
 * attempt, no closure and no composite signal (see `attempt`), which a change here has to keep.
 */
import type { Dispatcher } from "undici";
import { ProtocolError, SupplierUnavailableError } from "./errors.ts";
import { scrubApiKey } from "./keys.ts";
import type { ResponseHeaders } from "./outcome.ts";
import { readCapped } from "./response-body.ts";

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

/** The request headers for one key: built when the key is first checked, then reused by every call with it. */
export type RequestHeaders = Record<string, string>;

export type AttemptResult =
  | { kind: "response"; status: number; headers: ResponseHeaders; text: string }
  | { kind: "failed"; error: SupplierUnavailableError; maybeProcessed: boolean };

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export class CreateOrderEndpoint {
  private readonly dispatcher: Dispatcher;
  private readonly origin: string;
  private readonly path: string;
  private readonly timeoutMs: number;

  constructor(dispatcher: Dispatcher, endpoint: URL, timeoutMs: number) {
    this.dispatcher = dispatcher;
    this.origin = endpoint.origin;
    this.path = endpoint.pathname;
    this.timeoutMs = timeoutMs;
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
  async attempt(
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
