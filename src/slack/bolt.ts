/**
 * The parts of Bolt this app runs, taken from Bolt's own modules rather than from its index. The index also loads
 * its `ExpressReceiver`, and with it Express and its dependencies (≈ 0.7 MB of the start bundle: body-parser,
 * send, mime-db's table of types built at load…), which this app never uses: in HTTP mode it mounts Bolt's
 * request handling on its own HTTP server (receiver.ts). Loading them was ≈ 18 ms of CPU of every
 * `order-desk start` (docs/benchmarks.md, "Start-up of the embedded store"). Types still come from
 * "@slack/bolt", whose declarations are these modules'.
 *
 * Bolt's modules are CommonJS with their class as `exports.default`. A default import of CommonJS is the whole
 * `module.exports` for Node, tsx and esbuild's bundle, but the class itself under vitest: `classOf` takes either.
 */
import app from "@slack/bolt/dist/App.js";
import socketModeReceiver from "@slack/bolt/dist/receivers/SocketModeReceiver.js";

export * as HTTPModuleFunctions from "@slack/bolt/dist/receivers/HTTPModuleFunctions.js";
export { HTTPResponseAck } from "@slack/bolt/dist/receivers/HTTPResponseAck.js";
export { defaultProcessEventErrorHandler } from "@slack/bolt/dist/receivers/SocketModeFunctions.js";

export const BoltApp = classOf(app);
export const SocketModeReceiver = classOf(socketModeReceiver);

function classOf<T extends abstract new (...args: never[]) => unknown>(imported: T | { default: T }): T {
  return typeof imported === "function" ? imported : imported.default;
}
