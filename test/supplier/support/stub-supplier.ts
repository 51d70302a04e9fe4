/**
 * A scripted stand-in for the supplier on a real HTTP server (127.0.0.1, port 0). Each request takes the next
 * scripted reply (the last one repeats), so a test reads as the sequence of answers the supplier gives.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Reply =
  | { status: number; headers?: Record<string, string>; body?: string | object }
  /** Destroy the socket after reading the request: the client sees a connection reset. */
  | "reset"
  /** Never answer: the client's per-attempt timeout fires. */
  | "hang"
  /**
   * Send the status and headers at once, then the body one character every `everyMs` (with a Content-Length
   * when `contentLength`, chunked otherwise).
   */
  | { drip: string; everyMs: number; status?: number; contentLength?: boolean };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  remotePort: number;
}

export interface StubSupplier {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startStubSupplier(replies: Reply[]): Promise<StubSupplier> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    requests.push({
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
      remotePort: req.socket.remotePort ?? 0,
    });
    const reply = replies[Math.min(requests.length, replies.length) - 1];
    if (reply === undefined) throw new Error("stub supplier: no replies scripted");
    if (reply === "reset") {
      req.socket.destroy();
      return;
    }
    if (reply === "hang") return;
    if ("drip" in reply) {
      drip(res, reply);
      return;
    }
    const body =
      reply.body === undefined
        ? ""
        : typeof reply.body === "string"
          ? reply.body
          : JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...(typeof reply.body === "object" ? { "content-type": "application/json" } : {}),
      ...reply.headers,
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function drip(
  res: ServerResponse,
  reply: { drip: string; everyMs: number; status?: number; contentLength?: boolean },
) {
  res.writeHead(reply.status ?? 201, {
    "content-type": "application/json",
    ...(reply.contentLength ? { "content-length": String(Buffer.byteLength(reply.drip)) } : {}),
  });
  res.flushHeaders();
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= reply.drip.length) {
      clearInterval(timer);
      res.end();
      return;
    }
    res.write(reply.drip.charAt(sent++));
  }, reply.everyMs);
  res.on("close", () => clearInterval(timer));
}

// ---------------------------------------------------------------------------------------------------------
// Envelopes as the spec describes them.

export function meta(correlationId: string = randomUUID()) {
  return { timestamp: "2025-01-15T10:30:00.000+00:00", correlationId };
}

export function success(correlationId: string = randomUUID()): Reply {
  return {
    status: 201,
    body: { success: true, data: { correlationId }, error: null, meta: meta(correlationId) },
  };
}

/** `n` successes, each with its own correlation id (one per order the test places). */
export function successes(n: number): Reply[] {
  return Array.from({ length: n }, () => success());
}

export function failure(
  status: number,
  code: string,
  message = "failed",
  details: Record<string, string[]> | null = null,
): Reply {
  return { status, body: { success: false, data: null, error: { code, message, details }, meta: meta() } };
}
