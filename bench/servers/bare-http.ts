/**
 * Baseline process for start-up and memory: Node with tsx loaded (as our app runs) and one node:http server
 * answering 200 to everything — what any TypeScript service on this machine costs before it does anything.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { announceReady, closeOnSignal, readChildConfig } from "../lib/ipc.ts";

/** A fixed port lets the parent poll it from the spawn on, exactly as it polls our app's `/readyz`. */
const { port: wanted = 0 } = readChildConfig<{ port?: number }>();

const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
});
server.listen(wanted, "127.0.0.1", () => {
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
