/** Helpers for the sandbox tests: an order, raw HTTP calls, a webhook receiver, polling. */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { Agent, request } from "undici";
import type { CreateOrderRequestInput } from "../../src/supplier/schema.ts";

export const KEY = "ods_test_0123456789abcdef0123456789abcdef";
export const OTHER_KEY = "ods_test_fedcba9876543210fedcba9876543210";
export const LIVE_KEY = `ods_live_${"0123456789abcdef".repeat(2)}`;
export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

let sequence = 0;
export function uniqueNumber(prefix = "PO"): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${sequence}`;
}

export function validOrder(overrides: Partial<CreateOrderRequestInput> = {}): CreateOrderRequestInput {
  return {
    externalDocumentNumber: uniqueNumber(),
    customerReference: "TICKET-123",
    invoice: { id: "INV-ACME-01" },
    consignee: null,
    shipping: {
      deliveryAt: "Office",
      companyName: "Acme Ltd",
      contact: {
        firstName: "Ada",
        lastName: "Lovelace",
        phoneNumber: "+44 20 7946 0958",
        email: "ada@example.com",
      },
      address1: "12 Analytical Row",
      city: "London",
      zipCode: "N1 9GU",
      countryIso2: "GB",
    },
    orderLines: [
      { itemNumber: "LAPTOP-14", quantity: 1 },
      { itemNumber: "DOCK-USB-C", quantity: 1 },
      { itemNumber: "HEADSET", quantity: 2 },
    ],
    ...overrides,
  };
}

export const dispatcher = new Agent({ keepAliveTimeout: 1_000 });

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
  json: any;
}

export async function call(
  url: string,
  options: {
    method?: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
    body?: string | Buffer | AsyncIterable<Buffer>;
    key?: string | null;
    contentType?: string | null;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers["x-api-key"] = options.key ?? KEY;
  if (options.contentType !== null) headers["content-type"] = options.contentType ?? "application/json";
  const response = await request(url, {
    method: options.method ?? "POST",
    headers,
    dispatcher,
    body:
      typeof options.body === "string" || Buffer.isBuffer(options.body)
        ? options.body
        : options.body
          ? Readable.from(options.body)
          : null,
  });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

export function createOrder(baseUrl: string, order: unknown, key: string = KEY): Promise<Answer> {
  return call(`${baseUrl}/orders/create`, { body: JSON.stringify(order), key });
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A webhook receiver on port 0; `answer` decides each status (it may wait). */
export async function startReceiver(
  answer: (delivery: Received, index: number) => number | Promise<number> = () => 204,
): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const delivery = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      received.push(delivery);
      const status = await answer(delivery, received.length - 1);
      if (!res.destroyed) res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/supplier`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(10);
  }
}
