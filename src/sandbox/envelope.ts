/**
 * The response envelope (spec: every response body) and the HTTP status the sandbox pairs with each outcome.
 * The spec leaves the statuses open; these are our choices, documented in docs/sandbox.md. Clients must not
 * depend on them (ours decides by `error.code`), but a faithful sandbox still has to pick.
 */
import type { ValidationDetails } from "../supplier/rules.ts";
import type { ErrorCode, FailureEnvelope, SuccessEnvelope } from "../supplier/schema.ts";

/**
 * Codes outside the spec's four, for answers about the request itself rather than the order: the spec shows no
 * body for its 401, and nothing for unknown paths, methods, sizes or media types.
 */
export type SandboxErrorCode = ErrorCode | "UNAUTHORIZED" | "NOT_FOUND" | "METHOD_NOT_ALLOWED";

export const HTTP_STATUS = {
  /** 200, not 201: the spec defines no order resource to point a `Location` at. */
  success: 200,
  INVALID_PAYLOAD: 400,
  /** 400, the status of the framework whose path style the spec's details use (`Invoice.Id`). */
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  DUPLICATE_ORDER: 409,
  /** Body over 1 MiB; the envelope's code is INVALID_PAYLOAD. */
  payloadTooLarge: 413,
  /** Not `application/json`; the envelope's code is INVALID_PAYLOAD. */
  unsupportedMediaType: 415,
  INTERNAL_SERVER_ERROR: 500,
  /** `outage` fault: what a load balancer answers with its back end down (plain text, not the envelope). */
  outage: 503,
} as const;

export interface Meta {
  timestamp: string;
  correlationId: string;
}

export function successBody<D extends object>(data: D, meta: Meta): string {
  const body: Omit<SuccessEnvelope, "data"> & { data: D } = { success: true, data, error: null, meta };
  return JSON.stringify(body);
}

export function failureBody(
  code: SandboxErrorCode,
  message: string,
  meta: Meta,
  details: ValidationDetails | null = null,
): string {
  const body: Omit<FailureEnvelope, "error"> & {
    error: { code: SandboxErrorCode; message: string; details: ValidationDetails | null };
  } = { success: false, data: null, error: { code, message, details }, meta };
  return JSON.stringify(body);
}

export const MESSAGES = {
  invalidJson: "The request body is not valid JSON. Make sure the body is valid JSON and try again.",
  notAnObject:
    "The request body must be a JSON object (the order request). Make sure the body is valid JSON.",
  emptyBody: "The request body is empty. Send the order request as a JSON object.",
  tooLarge: (limit: number) =>
    `The request body is larger than ${limit} bytes. Make sure the body is valid JSON of a reasonable size (split very large orders).`,
  mediaType: "The request must have Content-Type: application/json. Make sure the body is valid JSON.",
  validation: "One or more validation errors occurred.",
  duplicate: (number: string) =>
    `An order with externalDocumentNumber '${number}' already exists. Use a new number, or look up the existing order.`,
  internal: "An unexpected error occurred. Please try again later.",
  notFound: (method: string, path: string) =>
    `There is no ${method} ${path}. The Order Placement API serves POST /orders/create; the sandbox also serves GET /_sandbox/orders.`,
  methodNotAllowed: (method: string, allow: string) => `${method} is not allowed here; use ${allow}.`,
  orderNotFound: (id: string) => `The sandbox holds no order with correlationId '${id}'.`,
} as const;
