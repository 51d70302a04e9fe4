/**
 * The sandbox's HTTP surface: `POST /orders/create` as the spec describes it, plus `GET /_sandbox/orders[/{id}]`
 * to look inside. Every answer, errors included, is the spec's envelope with `meta`; the status of each outcome
 * is in `envelope.ts` (HTTP_STATUS).
 *
 * Order of checks on create: faults → X-Api-Key → Content-Type → size (counted while streaming) → JSON object →
 * injected failure → the supplier's rules (every failing field at once) → duplicate number for the customer →
 * stored and accepted, then fulfilment starts.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import { checkOrderRequest } from "../supplier/rules.ts";
import { MAX_BODY_BYTES } from "../supplier/schema.ts";
import { isoWithOffset } from "./clock.ts";
import { failureBody, HTTP_STATUS, MESSAGES, type Meta, successBody } from "./envelope.ts";
import type { Faults } from "./faults.ts";
import { isJsonContentType, readBody, sendJson } from "./http.ts";
import type { KeyRing } from "./keys.ts";
import type { Random } from "./random.ts";
import type { SandboxOrder, SandboxStore } from "./store.ts";
import { describeOrder, progressed, summarise } from "./views.ts";

export const CREATE_PATH = "/orders/create";
export const INSPECT_PREFIX = "/_sandbox/orders";
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1000;

export interface SandboxServerDeps {
  keys: KeyRing;
  store: SandboxStore;
  faults: () => Faults;
  /** Draws fail-rate decisions (seeded). */
  faultRandom: Random;
  now: () => number;
  /** Divides the plan's realistic offsets (for the due times shown by `/_sandbox/orders/{id}`). */
  speed: number;
  /** No webhook: progress is computed when looked at (views.ts). */
  lazy: boolean;
  /** Builds and stores nothing: turns an accepted request into the order to store (plan included). */
  accept: (input: {
    correlationId: string;
    customer: string;
    apiKey: string;
    request: SandboxOrder["request"];
    acceptedAt: number;
  }) => SandboxOrder;
  /** Called once the order is stored: starts its fulfilment. */
  started: (order: SandboxOrder) => void;
  logger: Logger;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export function createRequestHandler(deps: SandboxServerDeps): RequestHandler {
  const meta = (correlationId: string = randomUUID()): Meta => ({
    timestamp: isoWithOffset(deps.now()),
    correlationId,
  });

  const fail = (
    res: ServerResponse,
    status: number,
    code: Parameters<typeof failureBody>[0],
    message: string,
    options: { details?: Record<string, string[]>; headers?: Record<string, string> } = {},
  ) => sendJson(res, status, failureBody(code, message, meta(), options.details ?? null), options.headers);

  async function createOrder(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const faults = deps.faults();
    if (faults.resetConnections) {
      req.socket.destroy();
      return;
    }
    if (faults.outage) {
      res.writeHead(HTTP_STATUS.outage, {
        "content-type": "text/plain",
        "retry-after": "1",
        connection: "close",
      });
      res.end("Service Unavailable");
      return;
    }
    if (faults.latencyMs > 0) await delay(faults.latencyMs);

    const auth = deps.keys.check(req.headers["x-api-key"]);
    if (!auth.ok) {
      fail(res, HTTP_STATUS.UNAUTHORIZED, "UNAUTHORIZED", auth.message, {
        headers: { "www-authenticate": 'ApiKey header="X-Api-Key"' },
      });
      return;
    }
    if (!isJsonContentType(req.headers["content-type"])) {
      fail(res, HTTP_STATUS.unsupportedMediaType, "INVALID_PAYLOAD", MESSAGES.mediaType, {
        headers: { "accept-post": "application/json" },
      });
      return;
    }
    const read = await readBody(req, MAX_BODY_BYTES);
    if (!read.ok) {
      if (read.reason === "too_large") {
        // The rest of the body is never read: close the connection after answering.
        fail(res, HTTP_STATUS.payloadTooLarge, "INVALID_PAYLOAD", MESSAGES.tooLarge(MAX_BODY_BYTES), {
          headers: { connection: "close" },
        });
      }
      return;
    }
    if (read.body.length === 0) {
      fail(res, HTTP_STATUS.INVALID_PAYLOAD, "INVALID_PAYLOAD", MESSAGES.emptyBody);
      return;
    }
    let input: unknown;
    try {
      input = JSON.parse(read.body.toString("utf8"));
    } catch {
      fail(res, HTTP_STATUS.INVALID_PAYLOAD, "INVALID_PAYLOAD", MESSAGES.invalidJson);
      return;
    }
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      fail(res, HTTP_STATUS.INVALID_PAYLOAD, "INVALID_PAYLOAD", MESSAGES.notAnObject);
      return;
    }
    if (faults.failRate > 0 && deps.faultRandom.chance(faults.failRate)) {
      fail(res, HTTP_STATUS.INTERNAL_SERVER_ERROR, "INTERNAL_SERVER_ERROR", MESSAGES.internal);
      return;
    }
    const checked = checkOrderRequest(input);
    if (!checked.ok) {
      fail(res, HTTP_STATUS.VALIDATION_FAILED, "VALIDATION_FAILED", MESSAGES.validation, {
        details: checked.details,
      });
      return;
    }
    const correlationId = randomUUID();
    const order = deps.accept({
      correlationId,
      customer: auth.customer,
      apiKey: auth.redacted,
      request: checked.value,
      acceptedAt: deps.now(),
    });
    const created = await deps.store.createOrder(order);
    if (!created.created) {
      fail(
        res,
        HTTP_STATUS.DUPLICATE_ORDER,
        "DUPLICATE_ORDER",
        MESSAGES.duplicate(checked.value.externalDocumentNumber),
      );
      return;
    }
    deps.started(order);
    if (deps.faults().resetAfterPlacing) {
      req.socket.destroy();
      return;
    }
    sendJson(res, HTTP_STATUS.success, successBody({ correlationId }, meta(correlationId)));
  }

  async function listOrders(url: URL, res: ServerResponse): Promise<void> {
    const limitParam = Number(url.searchParams.get("limit") ?? DEFAULT_LIST_LIMIT);
    const limit =
      Number.isInteger(limitParam) && limitParam > 0
        ? Math.min(limitParam, MAX_LIST_LIMIT)
        : DEFAULT_LIST_LIMIT;
    const customer = url.searchParams.get("customer");
    const orders = await deps.store.listOrders({ limit, ...(customer !== null && { customer }) });
    const context = { now: deps.now(), speed: deps.speed, lazy: deps.lazy };
    const views = orders.map((order) => summarise(progressed(order, [], context).order));
    sendJson(res, 200, successBody({ orders: views }, meta()));
  }

  async function showOrder(correlationId: string, res: ServerResponse): Promise<void> {
    const order = await deps.store.getOrder(correlationId);
    if (!order) {
      fail(res, HTTP_STATUS.NOT_FOUND, "NOT_FOUND", MESSAGES.orderNotFound(correlationId));
      return;
    }
    const events = await deps.store.events(correlationId);
    const now = progressed(order, events, { now: deps.now(), speed: deps.speed, lazy: deps.lazy });
    sendJson(res, 200, successBody({ order: describeOrder(now.order, now.events, deps.speed) }, meta()));
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    // A plain split, not `new URL()`: this runs on every create call; only the inspection routes need the query.
    const raw = req.url ?? "/";
    const question = raw.indexOf("?");
    const rawPath = question >= 0 ? raw.slice(0, question) : raw;
    const path = rawPath.length > 1 && rawPath.endsWith("/") ? rawPath.slice(0, -1) : rawPath;

    if (path === CREATE_PATH) {
      if (method !== "POST") {
        fail(
          res,
          HTTP_STATUS.METHOD_NOT_ALLOWED,
          "METHOD_NOT_ALLOWED",
          MESSAGES.methodNotAllowed(method, "POST"),
          {
            headers: { allow: "POST" },
          },
        );
        return;
      }
      await createOrder(req, res);
      return;
    }
    if (path === INSPECT_PREFIX || path.startsWith(`${INSPECT_PREFIX}/`)) {
      if (method !== "GET") {
        fail(
          res,
          HTTP_STATUS.METHOD_NOT_ALLOWED,
          "METHOD_NOT_ALLOWED",
          MESSAGES.methodNotAllowed(method, "GET"),
          {
            headers: { allow: "GET" },
          },
        );
        return;
      }
      const rest = path.slice(INSPECT_PREFIX.length + 1);
      if (rest === "") await listOrders(new URL(raw, "http://sandbox.invalid"), res);
      else if (!rest.includes("/")) await showOrder(decodeURIComponent(rest), res);
      else fail(res, HTTP_STATUS.NOT_FOUND, "NOT_FOUND", MESSAGES.notFound(method, path));
      return;
    }
    fail(res, HTTP_STATUS.NOT_FOUND, "NOT_FOUND", MESSAGES.notFound(method, path));
  }

  return (req, res) => {
    route(req, res).catch((error: unknown) => {
      // Never a stack or an internal message on the wire: the log has them.
      deps.logger.error({ err: error, method: req.method, path: req.url }, "sandbox request failed");
      fail(res, HTTP_STATUS.INTERNAL_SERVER_ERROR, "INTERNAL_SERVER_ERROR", MESSAGES.internal);
    });
  };
}
