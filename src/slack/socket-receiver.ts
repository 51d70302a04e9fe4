/**
 * Socket Mode for Bolt (`App({ socketMode: true, receiver })`), with Bolt's own client (@slack/socket-mode,
 * see socket-client.ts), kept connected:
 * - make-before-break: on Slack's `disconnect` (`refresh_requested`, `warning`, …) the next connection is
 *   opened while the old one keeps delivering. The old one is left for Slack to close (it does, seconds after
 *   asking): closing it from here could drop an envelope Slack had already put on it, since a WebSocket that
 *   sent its close frame ignores what arrives after. Only if Slack has not closed it `retireAfterMs` later is
 *   it closed from here, once the envelopes it carried are acked;
 * - a connection that drops is replaced, with capped exponential backoff and jitter between failed attempts;
 * - `apps.connections.open` failing (5xx, timeouts, 429) is retried the same way for as long as it takes:
 *   the process never ends over it, and `status()` (→ `/readyz`) says not ready meanwhile.
 * Only a token Slack refuses at start-up (invalid, revoked, a bot token) fails `start()`.
 *
 * Bolt's `SocketModeReceiver` is extended so the App stays a Socket Mode app by Bolt's own check; its single
 * client is replaced by the connections kept here. Envelopes reach `app.processEvent` as Bolt's receiver hands
 * them: ack once, retry number and reason, Bolt's default error handler.
 */
import type { App, Logger as SlackLogger, webApi } from "@slack/bolt";
import type { Logger } from "pino";
import { SocketModeReceiver } from "./bolt.ts";
import { slackClientOptions } from "./outbound/index.ts";
import { DISCONNECT_REQUESTED, quieter, SlackSocketClient } from "./socket-client.ts";
import { handToBolt, type SocketEnvelope } from "./socket-dispatch.ts";
import {
  describeConnectFailure,
  SlackAppTokenRefusedError,
  SocketClosedBeforeHelloError,
  SocketHelloTimeoutError,
} from "./socket-errors.ts";
import type { Connection, SlackSocketReceiverOptions, SocketStatus } from "./socket-types.ts";

export type { SlackSocketReceiverOptions, SocketReconnectOptions, SocketStatus } from "./socket-types.ts";

export class SlackSocketReceiver extends SocketModeReceiver {
  private boltApp: App | undefined;
  private readonly options: SlackSocketReceiverOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly connections = new Set<Connection>();
  private nextId = 0;
  private stopping = false;
  private reconnecting: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private downSince: number | null;
  private failures = 0;
  private lastError: string | null = null;

  /** The clients' own lines, one level down: every failure they report is logged here with its context. */
  private readonly clientLogger: SlackLogger;

  constructor(options: SlackSocketReceiverOptions) {
    const clientLogger = quieter(options.sdkLogger);
    super({ appToken: options.appToken, logger: clientLogger });
    this.clientLogger = clientLogger;
    this.options = options;
    this.log = options.logger.child({ component: "slack-socket" });
    this.now = options.now ?? Date.now;
    this.downSince = this.now();
  }

  override init(app: App): void {
    super.init(app);
    this.boltApp = app;
  }

  status(): SocketStatus {
    const open = this.live();
    return {
      connected: open.length > 0,
      connections: open.length,
      downSince: open.length > 0 ? null : this.downSince,
      failures: this.failures,
      lastError: this.lastError,
    };
  }

  override async start(): Promise<webApi.AppsConnectionsOpenResponse> {
    this.stopping = false;
    try {
      return await this.open();
    } catch (error) {
      const failure = describeConnectFailure(error);
      if (failure.permanent) {
        throw new SlackAppTokenRefusedError(`Slack refused the Socket Mode connection: ${failure.message}`, {
          cause: error,
        });
      }
      this.failed(failure.label, failure.message);
      this.log.warn(
        { err: failure.message },
        "Slack is not reachable yet: connecting in the background; /readyz answers not ready until connected",
      );
      void this.reconnect(failure.retryAfterMs ?? this.delay(1));
      return { ok: false, error: failure.label };
    }
  }

  override async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await Promise.all([...this.connections].map((c) => this.close(c)));
    this.options.metrics?.slackSocketConnections.set(0);
  }

  private live(): Connection[] {
    return [...this.connections].filter((c) => c.state === "open" || c.state === "retiring");
  }

  /** Jittered, capped exponential: 50–100 % of base × 2^(failures − 1), at most `maxMs`. */
  private delay(failures: number): number {
    const { baseMs = 500, maxMs = 30_000, random = Math.random } = this.options.reconnect ?? {};
    const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
    return Math.round(ceiling * (0.5 + random() * 0.5));
  }

  /** One connection at a time is being opened; callers share it. `firstDelayMs` waits before the first try. */
  private reconnect(firstDelayMs: number): Promise<void> {
    this.reconnecting ??= this.connectLoop(firstDelayMs).finally(() => {
      this.reconnecting = null;
    });
    return this.reconnecting;
  }

  /** Until a connection Slack has not asked to replace is open (or stopping). */
  private async replace(): Promise<void> {
    while (!this.stopping) {
      // A loop already running may be the one that opened the connection being replaced: let it end, then look.
      if (this.reconnecting) {
        await this.reconnecting;
        continue;
      }
      if (this.live().some((c) => c.state === "open")) return;
      await this.reconnect(0);
    }
  }

  private async connectLoop(firstDelayMs: number): Promise<void> {
    let wait = firstDelayMs;
    while (!this.stopping) {
      if (wait > 0) await this.pause(wait);
      if (this.stopping) return;
      try {
        await this.open();
        return;
      } catch (error) {
        if (this.stopping) return;
        const failure = describeConnectFailure(error);
        this.failed(failure.label, failure.message);
        wait = Math.max(failure.retryAfterMs ?? 0, this.delay(this.failures));
        this.log.warn(
          { attempt: this.failures, retryInMs: wait, err: failure.message },
          "could not open a Socket Mode connection to Slack: retrying",
        );
      }
    }
  }

  private failed(label: string, message: string): void {
    this.failures++;
    this.lastError = message;
    this.options.metrics?.slackSocketConnectFailures.inc({ error: label });
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  /** Opens one connection and resolves at Slack's hello. */
  private async open(): Promise<webApi.AppsConnectionsOpenResponse> {
    const conn = this.connection();
    const timeoutMs = this.options.helloTimeoutMs ?? 15_000;
    let timer: NodeJS.Timeout | undefined;
    const started = conn.client.start();
    started.catch(() => {}); // a start given up on below still settles later
    try {
      const response = await Promise.race([
        started.catch((error: unknown) => {
          throw error ?? new SocketClosedBeforeHelloError();
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new SocketHelloTimeoutError(timeoutMs)), timeoutMs);
        }),
      ]);
      if (this.stopping) throw new Error("stopping");
      conn.state = "open";
      conn.wasOpen = true;
      this.client = conn.client;
      this.opened();
      if (conn.disconnectReason !== undefined) this.onDisconnectRequested(conn, conn.disconnectReason);
      return response;
    } catch (error) {
      await this.close(conn);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private connection(): Connection {
    const { clientOptions } = this.options;
    const client = new SlackSocketClient({
      appToken: this.options.appToken,
      logger: this.clientLogger,
      // Reconnecting is done here (backoff, make-before-break); the client opens one connection and reports.
      autoReconnectEnabled: false,
      ...(this.options.pingTimeoutMs !== undefined ? { clientPingTimeout: this.options.pingTimeoutMs } : {}),
      // `background`: one call per attempt; the loop above retries, with its backoff, forever.
      clientOptions: slackClientOptions({ policy: "background", ...clientOptions }),
    });
    const conn: Connection = {
      id: ++this.nextId,
      client,
      inflight: new Set(),
      state: "opening",
      wasOpen: false,
    };
    client.on("slack_event", (args: SocketEnvelope) => {
      // An ack that cannot be sent any more (its connection closed) must not end the process.
      this.dispatch(conn, args).catch((error: unknown) =>
        this.log.error({ err: error }, "a Socket Mode envelope could not be handled or acked"),
      );
    });
    client.on("outgoing_message", (message: { envelope_id?: string }) => {
      if (message.envelope_id) conn.inflight.delete(message.envelope_id);
      if (conn.inflight.size === 0) conn.drained?.();
    });
    client.on(DISCONNECT_REQUESTED, (reason: string) => this.onDisconnectRequested(conn, reason));
    client.on("disconnected", () => this.onClosed(conn));
    // A start given up on (hello timeout, stop) may still connect later: close it then.
    client.on("connected", () => {
      if (conn.state === "closing" || conn.state === "closed") void client.disconnect();
    });
    this.connections.add(conn);
    return conn;
  }

  private opened(): void {
    const live = this.live().length;
    this.options.metrics?.slackSocketConnections.set(live);
    const downMs = this.downSince === null ? 0 : this.now() - this.downSince;
    if (this.downSince !== null) {
      this.log.info(
        { connections: live, failedAttempts: this.failures, downMs },
        "Socket Mode connected to Slack",
      );
    } else {
      this.log.info(
        { connections: live },
        "Socket Mode connection opened (the previous one is being replaced)",
      );
    }
    this.downSince = null;
    this.failures = 0;
    this.lastError = null;
  }

  private async dispatch(conn: Connection, args: SocketEnvelope): Promise<void> {
    conn.inflight.add(args.envelope_id);
    if (!this.boltApp) throw new Error("the receiver was not given to a Bolt App");
    await handToBolt(this.boltApp, args, this.options.sdkLogger);
  }

  private onDisconnectRequested(conn: Connection, reason: string): void {
    if (conn.state === "opening") conn.disconnectReason = reason;
    if (conn.state !== "open") return;
    conn.state = "retiring";
    this.options.metrics?.slackSocketReconnects.inc({ reason });
    if (reason === "link_disabled") {
      this.log.error(
        { reason },
        "Slack turned Socket Mode off for this app: turn it on again in the app's settings (Socket Mode), " +
          "or run Order Desk with SLACK_MODE=http; retrying meanwhile",
      );
    } else {
      this.log.info(
        { reason },
        "Slack asked to replace the Socket Mode connection: opening the next one first",
      );
    }
    this.replace()
      .then(() => this.retire(conn))
      .catch((error: unknown) => this.log.error({ err: error }, "replacing a Socket Mode connection failed"));
  }

  /** A replaced connection: Slack closes it; if it has not after `retireAfterMs`, it is closed from here. */
  private async retire(conn: Connection): Promise<void> {
    if (conn.state !== "retiring") return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.options.retireAfterMs ?? 15_000);
      conn.closed = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    if (conn.state !== "retiring") return;
    if (conn.inflight.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.drainMs ?? 3_000);
        conn.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await this.close(conn);
  }

  private async close(conn: Connection): Promise<void> {
    if (conn.state === "closed") return;
    conn.state = "closing";
    const closed = conn.client.disconnect();
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      closed.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), 2_000);
      }),
    ]);
    clearTimeout(timer);
    // No answer to the close frame: a second disconnect() tears the socket down without waiting.
    if (late) await conn.client.disconnect();
    this.onClosed(conn);
  }

  private onClosed(conn: Connection): void {
    if (conn.state === "closed") return;
    const was = conn.state;
    conn.state = "closed";
    conn.closed?.();
    conn.drained?.();
    this.connections.delete(conn);
    const live = this.live();
    this.options.metrics?.slackSocketConnections.set(live.length);
    if (live.length === 0 && this.downSince === null) this.downSince = this.now();
    if (this.stopping || !conn.wasOpen) return;
    if (was === "open") {
      this.options.metrics?.slackSocketReconnects.inc({ reason: "connection_lost" });
      this.log.warn({ connections: live.length }, "Socket Mode connection to Slack lost: reconnecting");
    }
    // Whatever ended, Order Desk wants one connection Slack has not asked to replace.
    if (!live.some((c) => c.state === "open")) void this.reconnect(this.delay(1));
  }
}
