/**
 * The app's one HTTP server (in Socket Mode too): health, the supplier's webhooks, and — mounted by the
 * composition root — Bolt's receiver at `/slack/events` and `/metrics`. A small route table, no framework:
 * each route owns its request entirely (Bolt's listener reads its own body; the webhook route reads the raw
 * bytes it must verify).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Logger, pino } from "pino";
import { sendError } from "./json.ts";
import { clip } from "./untrusted.ts";

export interface RouteContext {
  /** Child logger carrying this request's id. */
  logger: Logger;
  /** The request id: the caller's `x-request-id` when it sent a sane one, else a new one. */
  requestId: string;
}

/** Compatible with Node's `RequestListener`, so the Slack receiver's `requestListener` mounts as is. */
export type RouteHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  context: RouteContext,
) => void | Promise<void>;

export interface Route {
  /** An exact path (`/healthz`), or a prefix ending in `/*` (`/slack/*`). The query string is ignored. */
  path: string;
  /** Accepted methods (default: any). Others get 405 with `Allow`. */
  methods?: readonly string[];
  handler: RouteHandler;
}

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  routes?: readonly Route[];
  logger?: Logger;
  /**
   * How long an idle keep-alive connection stays open. Above the usual load balancer idle timeout (60 s) so
   * the balancer, not us, closes first — otherwise it may send a request on a socket we are closing (502s).
   */
  keepAliveTimeoutMs?: number;
  /** Longest time to receive a request's headers (slowloris guard). Default keep-alive + 1 s, as Node advises. */
  headersTimeoutMs?: number;
  /** Longest time to receive a whole request. Default 30 s. */
  requestTimeoutMs?: number;
}

export interface HttpServer {
  /** `http://host:port`, with the real port when 0 was asked. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Adds a route (e.g. `/slack/events` once Bolt is built, `/metrics`). A path can be registered once. */
  addRoute(route: Route): void;
  /**
   * Stops accepting connections, lets requests in flight finish for up to `graceMs` (default 10 s), then
   * cuts what is left. Idempotent.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

export class RouteConflictError extends Error {
  readonly code = "ROUTE_CONFLICT";
  constructor(readonly path: string) {
    super(`the HTTP route ${path} is registered twice; register each path once`);
    this.name = "RouteConflictError";
  }
}

class RouteTable {
  private readonly exact = new Map<string, Route>();
  private readonly prefixes: Array<{ prefix: string; route: Route }> = [];

  add(route: Route): void {
    if (route.path.endsWith("/*")) {
      const prefix = route.path.slice(0, -1);
      if (this.prefixes.some((p) => p.prefix === prefix)) throw new RouteConflictError(route.path);
      this.prefixes.push({ prefix, route });
      // Longest prefix first, so `/slack/events/*` beats `/slack/*`.
      this.prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
      return;
    }
    if (this.exact.has(route.path)) throw new RouteConflictError(route.path);
    this.exact.set(route.path, route);
  }

  find(path: string): Route | undefined {
    return this.exact.get(path) ?? this.prefixes.find((p) => path.startsWith(p.prefix))?.route;
  }
}

function pathOf(url: string | undefined): string {
  const raw = url ?? "/";
  const q = raw.indexOf("?");
  return q === -1 ? raw : raw.slice(0, q);
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "http" });
  const table = new RouteTable();
  for (const route of options.routes ?? []) table.add(route);
  let closing: Promise<void> | null = null;

  const server = createServer((req, res) => {
    const header = req.headers["x-request-id"];
    const requestId = typeof header === "string" && REQUEST_ID.test(header) ? header : randomUUID();
    // The child logger is made on first use: most requests log nothing at the default level.
    let requestLogger: Logger | undefined;
    const context: RouteContext = {
      requestId,
      get logger() {
        requestLogger ??= logger.child({ reqId: requestId });
        return requestLogger;
      },
    };
    const started = performance.now();
    // While shutting down, ask keep-alive clients to reconnect (to another replica) after this answer.
    if (closing) res.setHeader("connection", "close");
    res.on("finish", () => {
      if (!logger.isLevelEnabled("debug")) return;
      context.logger.debug(
        {
          method: req.method,
          path: pathOf(req.url),
          status: res.statusCode,
          ms: performance.now() - started,
        },
        "request",
      );
    });

    const path = pathOf(req.url);
    const route = table.find(path);
    if (!route) {
      sendError(res, 404, "not_found", `Nothing is served at ${clip(path)}.`);
      return;
    }
    if (route.methods && !route.methods.includes(req.method ?? "")) {
      sendError(res, 405, "method_not_allowed", `${path} accepts ${route.methods.join(", ")}.`, {
        headers: { allow: route.methods.join(", ") },
      });
      return;
    }
    const fail = (error: unknown) => {
      context.logger.error({ err: error, path }, "HTTP handler failed");
      if (!res.headersSent) sendError(res, 500, "internal_error", "Unexpected error; it has been logged.");
      else res.destroy();
    };
    try {
      const result = route.handler(req, res, context);
      if (result && typeof result.then === "function") result.then(undefined, fail);
    } catch (error) {
      fail(error);
    }
  });
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 65_000;
  server.headersTimeout = options.headersTimeoutMs ?? server.keepAliveTimeout + 1_000;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => logger.error({ err: error }, "HTTP server error"));
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
  const url = `http://${shownHost.includes(":") ? `[${shownHost}]` : shownHost}:${port}`;
  logger.info({ host: options.host, port }, "HTTP server listening");

  return {
    url,
    port,
    server,
    addRoute: (route) => table.add(route),
    close({ graceMs = 10_000 } = {}) {
      closing ??= new Promise<void>((resolve) => {
        const deadline = setTimeout(() => {
          logger.warn({ graceMs }, "HTTP shutdown deadline reached; closing connections still open");
          server.closeAllConnections();
        }, graceMs);
        deadline.unref();
        // A keep-alive connection whose request was in flight at close() becomes idle afterwards: sweep them.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        sweep.unref();
        server.close(() => {
          clearTimeout(deadline);
          clearInterval(sweep);
          logger.info("HTTP server closed");
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
