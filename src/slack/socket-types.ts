/** The Socket Mode receiver's settings, its status, and what it keeps per connection. */
import type { Logger as SlackLogger } from "@slack/bolt";
import type { Logger } from "pino";
import type { Metrics } from "../metrics.ts";
import type { SlackSocketClient } from "./socket-client.ts";

export interface SocketReconnectOptions {
  /** Delay after the first failure (default 500 ms), doubled after each further one… */
  baseMs?: number;
  /** …up to this (default 30 s). Each delay is jittered to 50–100 % of its value. */
  maxMs?: number;
  /** The jitter's source (default Math.random). */
  random?: () => number;
}

export interface SlackSocketReceiverOptions {
  appToken: string;
  /** For the SDK's own log lines. */
  sdkLogger: SlackLogger;
  logger: Logger;
  /** `apps.connections.open`: a timeout per call and the API URL (the fake Slack). */
  clientOptions: { timeoutMs: number; apiUrl?: string };
  metrics?: Pick<Metrics, "slackSocketConnections" | "slackSocketReconnects" | "slackSocketConnectFailures">;
  reconnect?: SocketReconnectOptions;
  /** From asking for a connection to Slack's hello (default 15 s). */
  helloTimeoutMs?: number;
  /** How long a replaced connection is left for Slack to close before it is closed from here (default 15 s). */
  retireAfterMs?: number;
  /** How long a connection closed from here may wait for its envelopes' acks (default 3 s, Slack's deadline). */
  drainMs?: number;
  /** The client's pong deadline (the library's default, 5 s): how soon a silent connection is given up. */
  pingTimeoutMs?: number;
  now?: () => number;
}

export interface SocketStatus {
  /** At least one connection is open (one being replaced counts: it still delivers). */
  connected: boolean;
  connections: number;
  /** Since when no connection has been open (ms epoch), or null. */
  downSince: number | null;
  /** Failed attempts since the last connection opened. */
  failures: number;
  /** The last attempt's failure, in words. */
  lastError: string | null;
}

export interface Connection {
  readonly id: number;
  readonly client: SlackSocketClient;
  /** Envelopes received and not yet acked. */
  readonly inflight: Set<string>;
  state: "opening" | "open" | "retiring" | "closing" | "closed";
  /** Said hello once: its end is a reason to reconnect (a failed attempt's is not). */
  wasOpen: boolean;
  /**
   * Slack's `disconnect`, read before the hello was acted on (both can arrive in one read when the event loop
   * was busy): honoured as soon as the connection counts as open.
   */
  disconnectReason?: string;
  drained?: () => void;
  /** Called once, when it closed. */
  closed?: () => void;
}
