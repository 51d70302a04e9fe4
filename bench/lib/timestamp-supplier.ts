/**
 * A supplier that notes when each order arrives: a bare node:http `POST /orders/create` answering the success
 * envelope, which records `performance.now()` as soon as a request's headers are in, keyed by the order's
 * `customerReference` (the ticket id). It runs in the benchmark's own process, so arrival times share a clock
 * with the moment the benchmark sent the Slack request that caused them.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { successEnvelope } from "./fixtures.ts";

export interface Arrival {
  /** performance.now() when the request's headers had arrived. */
  at: number;
  correlationId: string;
  externalDocumentNumber: string;
}

export interface TimestampSupplier {
  /** Base URL (give it to the app as SUPPLIER_BASE_URL). */
  url: string;
  /** Resolves when an order with this customerReference arrives (at once if it already has). */
  arrival(customerReference: string, timeoutMs?: number): Promise<Arrival>;
  close(): Promise<void>;
}

export async function startTimestampSupplier(): Promise<TimestampSupplier> {
  const arrivals = new Map<string, Arrival>();
  const waiters = new Map<string, (arrival: Arrival) => void>();
  const server = createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let order: { customerReference?: unknown; externalDocumentNumber?: unknown };
      try {
        order = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end('{"success":false}');
        return;
      }
      const correlationId = randomUUID();
      const reference = String(order.customerReference ?? "");
      const arrival = {
        at,
        correlationId,
        externalDocumentNumber: String(order.externalDocumentNumber ?? ""),
      };
      arrivals.set(reference, arrival);
      waiters.get(reference)?.(arrival);
      waiters.delete(reference);
      const body = successEnvelope(correlationId, new Date().toISOString());
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    arrival(customerReference, timeoutMs = 30_000) {
      const known = arrivals.get(customerReference);
      if (known) return Promise.resolve(known);
      return new Promise<Arrival>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(customerReference);
          reject(new Error(`no order with customerReference ${customerReference} reached the supplier`));
        }, timeoutMs);
        waiters.set(customerReference, (arrival) => {
          clearTimeout(timer);
          resolve(arrival);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
