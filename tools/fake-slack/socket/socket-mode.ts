/**
 * Slack's Socket Mode, as https://docs.slack.dev/apis/events-api/using-socket-mode describes it: the app calls
 * `apps.connections.open` with its app-level token and gets a single-use `ws://` URL; the connection starts
 * with `hello`; Slack sends envelopes (`slash_commands`, `interactive`, `events_api`) carrying an
 * `envelope_id`, which the app acknowledges with `{ envelope_id, payload? }` within 3 s. Events not acked in
 * time are sent again with `retry_attempt` / `retry_reason`; a command or an interaction not acked shows the
 * user an error instead. Slack sends `disconnect` (`refresh_requested`, `warning`, `link_disabled`) before it
 * closes a connection, spreads envelopes over an app's open connections, and tells a command that found no
 * connection `dispatch_failed`.
 *
 * Everything is recorded for tests: each connection (opened, hello, closed by whom), each envelope sent (its
 * connection and attempt), each ack with its payload (late ones too), each dispatch that found no connection,
 * and the count of open connections over time.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Clock } from "../ids.ts";
import type { Json } from "../state.ts";
import { acceptUpgrade, type ClosedBy, refuseUpgrade, SocketConnection } from "./connection.ts";
import {
  type AckRecord,
  type ConnectionRecord,
  type Delivery,
  DeliveryFailed,
  type EnvelopeRecord,
  type EnvelopeType,
  type FakeSocketMode,
  type SocketModeOptions,
  type Undelivered,
} from "./records.ts";

export * from "./records.ts";

/** The parts of the fake Slack server Socket Mode lives in. */
export interface SocketModeHost {
  clock: Clock;
  appId: string;
  /** `ws://host:port` of the fake's server. */
  wsBase(): string;
  changed(): void;
}

export function isAppToken(token: string): boolean {
  return /^xapp-[A-Za-z0-9-]{4,}$/.test(token);
}

interface Pending {
  deliveryId: string;
  type: EnvelopeType;
  payload: Json;
  attempts: number;
  resolve(delivery: Delivery): void;
  reject(error: DeliveryFailed): void;
}

interface Live {
  record: ConnectionRecord;
  socket: SocketConnection;
}

/** An envelope sent and not yet settled. */
interface InFlight {
  record: EnvelopeRecord;
  pending: Pending;
  timer?: NodeJS.Timeout;
  /** Its ack is to count as late (`lateAckNext`). */
  late?: boolean;
  /** Acked, timed out or failed: later acks are only recorded. */
  done?: boolean;
}

const ACCEPTS_RESPONSE = new Set(["view_submission", "block_suggestion"]);

export function createSocketMode(host: SocketModeHost, options: SocketModeOptions = {}) {
  const ackTimeoutMs = options.ackTimeoutMs ?? 3_000;
  const retryDelaysMs = options.retryDelaysMs ?? [0, 60_000, 300_000];
  const pingIntervalMs = options.pingIntervalMs ?? 10_000;
  const closeAfterDisconnectMs = options.closeAfterDisconnectMs ?? 10_000;
  const ticketTtlMs = options.ticketTtlMs ?? 30_000;
  const tickets = new Map<string, number>();
  const live = new Map<string, Live>();
  const records: ConnectionRecord[] = [];
  const envelopes: EnvelopeRecord[] = [];
  const byEnvelope = new Map<string, InFlight>();
  const acks: AckRecord[] = [];
  const undelivered: Undelivered[] = [];
  const timeline: Array<{ at: number; open: number }> = [];
  const waiting: Pending[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let lateAcks = 0;
  let nextConnection = 0;
  let turn = 0;

  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
    return timer;
  };
  const openLive = () => [...live.values()].filter((l) => l.socket.isOpen);
  const mark = () => {
    timeline.push({ at: host.clock(), open: openLive().length });
    host.changed();
  };

  /** Round robin over open connections, preferring those Slack has not told to disconnect. */
  function pick(): Live | undefined {
    const open = openLive();
    const fresh = open.filter((l) => !l.record.disconnect);
    const pool = fresh.length > 0 ? fresh : open;
    if (pool.length === 0) return undefined;
    turn = (turn + 1) % pool.length;
    return pool[turn];
  }

  function send(pending: Pending, retryReason: string): void {
    const target = pick();
    if (!target) {
      undelivered.push({ at: host.clock(), type: pending.type, deliveryId: pending.deliveryId });
      host.changed();
      // Events wait for a connection; a person's command or click fails at once.
      if (pending.type === "events_api") waiting.push(pending);
      else pending.reject(new DeliveryFailed("dispatch_failed", pending.deliveryId));
      return;
    }
    const envelopeId = randomUUID();
    const interactionType = String(pending.payload.type ?? "");
    const record: EnvelopeRecord = {
      envelopeId,
      type: pending.type,
      deliveryId: pending.deliveryId,
      payload: pending.payload,
      acceptsResponsePayload:
        pending.type === "slash_commands" ||
        (pending.type === "interactive" && ACCEPTS_RESPONSE.has(interactionType)),
      retryAttempt: pending.attempts,
      retryReason,
      connectionId: target.record.id,
      sentAt: host.clock(),
      ack: undefined,
      acks: 0,
    };
    pending.attempts++;
    envelopes.push(record);
    const entry: InFlight = { record, pending };
    if (lateAcks > 0) {
      lateAcks--;
      entry.late = true;
    }
    byEnvelope.set(envelopeId, entry);
    entry.timer = later(ackTimeoutMs, () => missed(entry, "timeout"));
    target.socket.sendJson({
      envelope_id: envelopeId,
      payload: pending.payload,
      type: pending.type,
      accepts_response_payload: record.acceptsResponsePayload,
      ...(pending.type === "events_api"
        ? { retry_attempt: record.retryAttempt, retry_reason: retryReason }
        : {}),
    });
    host.changed();
  }

  /** No ack in time: an event is sent again; a command or an interaction fails for the person. */
  function missed(entry: InFlight, reason: string) {
    entry.done = true;
    clearTimeout(entry.timer);
    if (entry.record.type !== "events_api") {
      entry.pending.reject(
        new DeliveryFailed(reason === "timeout" ? "operation_timeout" : reason, entry.pending.deliveryId),
      );
      return;
    }
    const retry = entry.pending.attempts - 1;
    const delay = retryDelaysMs[retry];
    if (delay === undefined) {
      entry.pending.reject(new DeliveryFailed("retries_exhausted", entry.pending.deliveryId));
      return;
    }
    later(delay, () => send(entry.pending, "timeout"));
  }

  function onAck(connectionId: string, text: string): void {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return; // Slack ignores what it cannot parse
    }
    if (typeof message.envelope_id !== "string") return;
    const entry = byEnvelope.get(message.envelope_id);
    const payload =
      typeof message.payload === "object" &&
      message.payload !== null &&
      Object.keys(message.payload).length > 0
        ? (message.payload as Json)
        : undefined;
    // Late: made to count as late, or it came after the deadline had already settled the envelope.
    const late = entry
      ? entry.late === true || (entry.done === true && entry.record.ack === undefined)
      : false;
    const ack: AckRecord = {
      envelopeId: message.envelope_id,
      connectionId,
      at: host.clock(),
      payload,
      late,
      known: entry !== undefined,
    };
    acks.push(ack);
    host.changed();
    if (!entry) return;
    entry.record.acks++;
    entry.record.ack ??= ack;
    if (entry.done) return;
    if (late) {
      missed(entry, "timeout");
      return;
    }
    entry.done = true;
    clearTimeout(entry.timer);
    entry.pending.resolve({
      deliveryId: entry.pending.deliveryId,
      envelopeId: entry.record.envelopeId,
      payload,
      attempts: entry.pending.attempts,
    });
  }

  function onClosed(record: ConnectionRecord, by: ClosedBy): void {
    record.closedAt = host.clock();
    record.closedBy = by;
    live.delete(record.id);
    // A person's command or click sent over this connection and not acked will never be answered.
    for (const entry of byEnvelope.values()) {
      if (entry.record.connectionId !== record.id || entry.done || entry.record.type === "events_api")
        continue;
      entry.done = true;
      clearTimeout(entry.timer);
      entry.pending.reject(new DeliveryFailed("connection_closed", entry.pending.deliveryId));
    }
    mark();
  }

  const api: FakeSocketMode = {
    connections: () => [...records],
    openConnections: () => openLive().map((l) => l.record),
    envelopes: (filter = {}) =>
      envelopes.filter(
        (e) =>
          (filter.type === undefined || e.type === filter.type) &&
          (filter.deliveryId === undefined || e.deliveryId === filter.deliveryId),
      ),
    acks: () => [...acks],
    undelivered: () => [...undelivered],
    timeline: () => [...timeline],
    deliver(type, payload, retry) {
      const delivery = new Promise<Delivery>((resolve, reject) => {
        const attempts = retry?.attempt ?? 0;
        send({ deliveryId: randomUUID(), type, payload, attempts, resolve, reject }, retry?.reason ?? "");
      });
      // Fire-and-forget deliveries are fine: only a caller who awaits one hears that it failed.
      delivery.catch(() => {});
      return delivery;
    },
    disconnect(reason, connectionId) {
      const targets = openLive().filter((l) => connectionId === undefined || l.record.id === connectionId);
      for (const target of targets) {
        target.record.disconnect = { reason, at: host.clock() };
        target.socket.sendJson({
          type: "disconnect",
          reason,
          debug_info: { host: `applink-${target.record.id}` },
        });
        later(reason === "link_disabled" ? 0 : closeAfterDisconnectMs, () => target.socket.close(1000));
      }
      host.changed();
      return targets.map((t) => t.record.id);
    },
    drop(connectionId) {
      const targets = [...live.values()].filter(
        (l) => connectionId === undefined || l.record.id === connectionId,
      );
      for (const target of targets) target.socket.drop();
      return targets.map((t) => t.record.id);
    },
    lateAckNext(count = 1) {
      lateAcks += count;
    },
    stall(connectionId) {
      const targets = openLive().filter((l) => connectionId === undefined || l.record.id === connectionId);
      for (const target of targets) target.socket.stalled = true;
      return targets.map((t) => t.record.id);
    },
  };

  return {
    api,
    /** `apps.connections.open`: a fresh single-use URL. */
    openUrl(): string {
      const ticket = randomUUID();
      tickets.set(ticket, host.clock() + ticketTtlMs);
      return `${host.wsBase()}/link/?ticket=${ticket}&app_id=${host.appId}`;
    },
    acceptsToken(token: string): boolean {
      return options.appToken === undefined ? isAppToken(token) : token === options.appToken;
    },
    /** The HTTP server's `upgrade` event. */
    upgrade(req: IncomingMessage, socket: Duplex): void {
      const url = new URL(req.url ?? "/", "http://fake");
      const ticket = url.searchParams.get("ticket") ?? "";
      const expires = tickets.get(ticket);
      if (url.pathname !== "/link/" || expires === undefined || expires < host.clock()) {
        refuseUpgrade(socket, 401, "Unauthorized");
        return;
      }
      tickets.delete(ticket);
      if (!acceptUpgrade(req, socket)) return;
      const now = host.clock();
      const record: ConnectionRecord = {
        id: `c${++nextConnection}`,
        openedAt: now,
        helloAt: now,
        closedAt: undefined,
        closedBy: undefined,
        disconnect: undefined,
      };
      const connection = new SocketConnection(
        socket,
        { onText: (text) => onAck(record.id, text), onClosed: (by) => onClosed(record, by) },
        pingIntervalMs,
      );
      records.push(record);
      live.set(record.id, { record, socket: connection });
      connection.sendJson({
        type: "hello",
        num_connections: openLive().length,
        debug_info: { host: `applink-${record.id}`, build_number: 1, approximate_connection_time: 18_060 },
        connection_info: { app_id: host.appId },
      });
      mark();
      // Events that found no connection go out now, as Slack's retries would deliver them.
      for (const pending of waiting.splice(0)) send(pending, pending.attempts === 0 ? "" : "timeout");
    },
    close(): void {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const l of live.values()) l.socket.drop();
      for (const entry of byEnvelope.values()) {
        clearTimeout(entry.timer);
        if (!entry.done) entry.pending.reject(new DeliveryFailed("slack_closed", entry.pending.deliveryId));
        entry.done = true;
      }
      for (const pending of waiting.splice(0))
        pending.reject(new DeliveryFailed("slack_closed", pending.deliveryId));
    },
  };
}

export type SocketModeServer = ReturnType<typeof createSocketMode>;
