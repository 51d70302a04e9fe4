/**
 * Crash and restart in Socket Mode (harness/crash-scenario.ts): the process is SIGKILLed mid-burst while its
 * WebSocket carries the orders; each restart opens a new connection. Smaller than the HTTP runs (20 orders,
 * three kills) so it stays around a minute on CI; RELIABILITY_FULL=1 runs 100 orders and five kills.
 */
import { crashScenario } from "./harness/crash-scenario.ts";

const FULL = process.env.RELIABILITY_FULL === "1";

crashScenario("pglite", {
  slackMode: "socket",
  orders: Number(process.env.RELIABILITY_SOCKET_ORDERS ?? (FULL ? 100 : 20)),
  kills: FULL ? 5 : 3,
  spanMs: FULL ? 20_000 : 10_000,
});
