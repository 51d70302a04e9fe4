/**
 * The supplier: can we reach the base URL at all, and is the API key meant for the environment it points at.
 * Reachability is a plain GET of the base URL: any HTTP answer (even 401, 404 or 405) proves DNS, TLS and
 * routing work. It never calls `POST /orders/create`, so the doctor cannot place an order.
 */
import { Agent, type Dispatcher, request } from "undici";
import { redactUrl } from "../../redact-url.ts";
import type { SupplierEnvironment } from "../../supplier/keys.ts";
import { type CheckOutcome, describeError, fail, ok } from "../check.ts";

export interface SupplierReachableOptions {
  baseUrl: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Default: a fresh Agent closed after the request, so the doctor leaves no socket open. */
  dispatcher?: Dispatcher;
  now?: () => number;
}

const HINTS: Record<string, string> = {
  ECONNREFUSED: "nothing listens there",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "DNS did not answer",
  EHOSTUNREACH: "no route to the host",
  ENETUNREACH: "no route to the network",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out (a firewall?)",
  UND_ERR_HEADERS_TIMEOUT: "connected, but no answer in time",
  CERT_HAS_EXPIRED: "its TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "its TLS certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "its TLS certificate chain cannot be verified",
  ERR_TLS_CERT_ALTNAME_INVALID: "its TLS certificate is for another host name",
};

export async function checkSupplierReachable(options: SupplierReachableOptions): Promise<CheckOutcome> {
  const now = options.now ?? Date.now;
  const own = options.dispatcher
    ? null
    : new Agent({
        connect: { timeout: options.timeoutMs },
        keepAliveTimeout: 1,
        pipelining: 0,
        allowH2: false,
      }); // as placement does (supplier/client.ts)
  const dispatcher = options.dispatcher ?? own!;
  const shown = redactUrl(options.baseUrl);
  const started = now();
  try {
    const response = await request(options.baseUrl, {
      method: "GET",
      dispatcher,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      headers: { accept: "application/json", "user-agent": "order-desk-doctor" },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await response.body.dump();
    return ok(
      `${shown} answered HTTP ${response.statusCode} in ${now() - started} ms (reachable; no order placed)`,
    );
  } catch (error) {
    const code = (error as { code?: unknown; cause?: { code?: unknown } }).code;
    const causeCode = (error as { cause?: { code?: unknown } }).cause?.code;
    const known = [code, causeCode].find((c): c is string => typeof c === "string" && c in HINTS);
    const why = known ? `${HINTS[known]} (${known})` : describeError(error);
    return fail(`cannot reach ${shown}: ${why}. Check SUPPLIER_BASE_URL and the network path.`);
  } finally {
    await own?.destroy();
  }
}

export interface KeyEnvironmentOptions {
  /** From `parseApiKey`/the provider: the environment the key's prefix names. */
  keyEnvironment: SupplierEnvironment;
  redactedKey: string;
  /** SUPPLIER_ENVIRONMENT: what `SUPPLIER_BASE_URL` is. */
  target: SupplierEnvironment;
  baseUrl: string;
}

export function checkKeyEnvironment(options: KeyEnvironmentOptions): CheckOutcome {
  const { keyEnvironment, redactedKey, target } = options;
  const baseUrl = redactUrl(options.baseUrl);
  if (keyEnvironment === target) {
    return ok(`${redactedKey} is a ${keyEnvironment} key and SUPPLIER_ENVIRONMENT=${target} (${baseUrl})`);
  }
  return fail(
    `${redactedKey} is a ${keyEnvironment} key but SUPPLIER_ENVIRONMENT=${target} (${baseUrl}): every order would be ` +
      `refused before it is sent. Store a ${target} key in the secret, or point SUPPLIER_BASE_URL and ` +
      `SUPPLIER_ENVIRONMENT at the ${keyEnvironment} API.`,
  );
}
