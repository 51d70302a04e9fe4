/**
 * Baseline supplier: a bare `node:http` server answering every `POST /orders/create` with the success envelope
 * after reading and parsing the body — the least a server can do and still answer the same JSON. No key check,
 * no rules, no storage: what the real sandbox is compared against.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { successEnvelope } from "../lib/fixtures.ts";
import { announceReady, closeOnSignal } from "../lib/ipc.ts";

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"success":false}');
      return;
    }
    const body = successEnvelope(randomUUID(), new Date().toISOString());
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  announceReady({ url: `http://127.0.0.1:${port}` });
});
closeOnSignal(
  () =>
    new Promise<void>((done) => {
      server.close(() => done());
      server.closeAllConnections();
    }),
);
