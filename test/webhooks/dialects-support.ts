/**
 * The wire around the offline world for the dialect end-to-end tests: a tap between the sandbox and Order Desk
 * that records every delivery attempt as sent and can lose Order Desk's answer (the supplier then retries), and
 * a front before the sandbox that can hold a placement answer until the order's first event was delivered (so it
 * arrives as an orphan) or accept an order itself (a supplier the test speaks for, to cancel it).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { successBody } from "../../src/sandbox/envelope.ts";
import type { SandboxHandle } from "../../src/sandbox/sandbox.ts";

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Request headers to pass on: the hop's own are left to the client. */
function forwardable(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (["host", "connection", "content-length", "transfer-encoding"].includes(name)) continue;
    if (typeof value === "string") headers[name] = value;
  }
  return headers;
}

export interface TappedAttempt {
  /** The delivery's id header (`webhook-id`, or `X-Supplier-Delivery` in the alt dialect). */
  deliveryId: string;
  body: string;
  headers: Record<string, string>;
  /** Order Desk's answer (sent on, or lost). */
  status: number;
  answer: string;
  lost: boolean;
}

export interface WebhookTap {
  /** Where the sandbox delivers: `…/webhooks/supplier`. */
  readonly url: string;
  readonly attempts: TappedAttempt[];
  /** Order Desk's URL, known once the world has started (its port is chosen there). */
  target(appUrl: string): void;
  /** Loses Order Desk's answer to the first attempt of each delivery this says yes to (asked once per id). */
  loseFirstAnswer(decide: (deliveryId: string, body: string) => boolean): void;
  close(): Promise<void>;
}

export async function startWebhookTap(idHeader: string): Promise<WebhookTap> {
  let appUrl: string | undefined;
  let decide: (deliveryId: string, body: string) => boolean = () => false;
  const decided = new Set<string>();
  const attempts: TappedAttempt[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (!appUrl) {
      res.writeHead(503).end();
      return;
    }
    const headers = forwardable(req);
    const deliveryId = headers[idHeader.toLowerCase()] ?? "";
    const first = !decided.has(deliveryId);
    decided.add(deliveryId);
    const lose = first && decide(deliveryId, body.toString("utf8"));
    let status = 0;
    let answer = "";
    try {
      const response = await fetch(`${appUrl}${req.url}`, { method: "POST", headers, body });
      status = response.status;
      answer = await response.text();
    } catch (error) {
      answer = (error as Error).message;
    }
    attempts.push({
      deliveryId,
      body: body.toString("utf8"),
      headers,
      status,
      answer,
      lost: lose || status === 0,
    });
    // Order Desk has answered (and stored): the supplier never hears it, and tries again.
    if (lose || status === 0) res.destroy();
    else res.writeHead(status, { "content-type": "application/json" }).end(answer);
  });
  const base = await listen(server);
  return {
    url: `${base}/webhooks/supplier`,
    attempts,
    target(url) {
      appUrl = url;
    },
    loseFirstAnswer(fn) {
      decide = fn;
    },
    close: () => close(server),
  };
}

export interface Placed {
  correlationId: string;
  externalDocumentNumber: string;
}

export interface Acceptance {
  placed: Promise<Placed>;
  release(): void;
}

export interface SupplierFront {
  readonly url: string;
  /** The next placement of this ticket is answered only once the sandbox has delivered the order's first event. */
  holdUntilFirstEvent(ticket: string): void;
  /**
   * The next placement of this ticket is accepted here, never reaching the sandbox: `placed` resolves with what it
   * took as soon as the request is in, and the answer goes out on `release()`.
   */
  acceptHere(ticket: string): Acceptance;
  close(): Promise<void>;
}

/** Put in front of the sandbox with `startWorld({ inFrontOfSandbox })`; `sandbox` is read once the world is up. */
export async function startSupplierFront(
  sandboxUrl: string,
  sandbox: () => SandboxHandle,
): Promise<SupplierFront> {
  const held = new Set<string>();
  const accepting = new Map<string, { took: (placed: Placed) => void; released: Promise<void> }>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    let request: { customerReference?: string; externalDocumentNumber?: string } = {};
    try {
      request = JSON.parse(body.toString("utf8"));
    } catch {
      // Not a placement: passed on as it is.
    }
    const ticket = request.customerReference ?? "";
    const accept = accepting.get(ticket);
    if (req.url === "/orders/create" && accept) {
      accepting.delete(ticket);
      const correlationId = randomUUID();
      accept.took({ correlationId, externalDocumentNumber: request.externalDocumentNumber ?? "" });
      await accept.released;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(successBody({ correlationId }, { timestamp: new Date().toISOString(), correlationId }));
      return;
    }
    const response = await fetch(`${sandboxUrl}${req.url}`, {
      method: req.method ?? "GET",
      headers: forwardable(req),
      ...(body.length > 0 && { body }),
    });
    const text = await response.text();
    if (req.url === "/orders/create" && held.delete(ticket)) {
      const correlationId = (JSON.parse(text) as { data?: { correlationId?: string } }).data?.correlationId;
      // Bounded: should the event never come, the answer goes out anyway and the test's own checks say why.
      const deadline = Date.now() + 20_000;
      while (correlationId && Date.now() < deadline) {
        const order = await sandbox().order(correlationId);
        if ((order?.events[0]?.delivery.attempts.length ?? 0) > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    res.writeHead(response.status, {
      "content-type": response.headers.get("content-type") ?? "application/json",
    });
    res.end(text);
  });
  const url = await listen(server);
  return {
    url,
    holdUntilFirstEvent: (ticket) => held.add(ticket),
    acceptHere(ticket) {
      let took: (placed: Placed) => void = () => {};
      let release: () => void = () => {};
      const placed = new Promise<Placed>((resolve) => (took = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      accepting.set(ticket, { took, released });
      return { placed, release };
    },
    close: () => close(server),
  };
}
