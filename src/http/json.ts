/**
 * Every answer of our HTTP server is JSON, including errors, so that a caller (the supplier, a load balancer,
 * an operator with curl) always learns what went wrong from the body alone.
 */
import type { ServerResponse } from "node:http";
import { endAfterRequestBody } from "./drain.ts";

export interface ErrorBody {
  ok: false;
  /** Stable, machine-readable reason (snake_case). */
  error: string;
  /** What is wrong and what to do about it. */
  message: string;
  [extra: string]: unknown;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    "cache-control": "no-store",
    ...headers,
  });
  // An answer given before the body was read (a refusal) waits for it: drain.ts says why.
  endAfterRequestBody(res, text);
}

export function sendError(
  res: ServerResponse,
  status: number,
  error: string,
  message: string,
  options: { headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
): void {
  const body: ErrorBody = { ok: false, error, message, ...options.extra };
  sendJson(res, status, body, options.headers);
}
