/**
 * Baseline webhook endpoint: a bare node:http handler doing what the receiver must do and nothing more — read
 * the raw body, verify the Standard Webhooks signature with our verifier, and store the event with the same
 * single INSERT (`insertEventIfNew`) on the same kind of store, then answer 200.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { openStore } from "../../src/store/db.ts";
import { insertEventIfNew } from "../../src/store/repositories/events.ts";
import { verifyWebhook } from "../../src/supplier/webhook-signature.ts";
import { announceReady, closeOnSignal, readChildConfig } from "../lib/ipc.ts";

export interface BareWebhookConfig {
  secret: string;
  /** PostgreSQL URL, or absent for PGlite in `dataDir`. */
  databaseUrl?: string;
  dataDir?: string;
}

const config = readChildConfig<BareWebhookConfig>();
const store = await openStore(
  config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir ?? "memory://" },
);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", async () => {
    const rawBody = Buffer.concat(chunks);
    try {
      verifyWebhook({
        headers: req.headers,
        rawBody,
        secrets: [config.secret],
        nowSeconds: Math.floor(Date.now() / 1000),
      });
    } catch {
      res.writeHead(401).end();
      return;
    }
    try {
      const event = JSON.parse(rawBody.toString("utf8"));
      await insertEventIfNew(store, {
        id: event.id,
        correlationId: event.correlationId,
        type: event.type,
        occurredAt: event.occurredAt,
        payload: event,
      });
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    } catch {
      res.writeHead(503).end();
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  announceReady({ url: `http://127.0.0.1:${port}` });
});
closeOnSignal(async () => {
  await new Promise<void>((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
  await store.close();
});
