/**
 * What the fake's Socket Mode records and answers: its options, connections, envelopes, acks, deliveries, and
 * the test-facing interface (`fake.socketMode`).
 */
import type { Json } from "../state.ts";
import type { ClosedBy } from "./connection.ts";

export type EnvelopeType = "slash_commands" | "interactive" | "events_api";

export interface SocketModeOptions {
  /** The app-level token `apps.connections.open` accepts; default any token of the `xapp-` shape. */
  appToken?: string;
  /** Slack's ack deadline (3 s). */
  ackTimeoutMs?: number;
  /** When an unacked event is sent again, after its deadline passed (Slack: at once, 1 min, 5 min). */
  retryDelaysMs?: readonly number[];
  /** Slack's pings to the app (default every 10 s; 0: none). */
  pingIntervalMs?: number;
  /** How long a connection told `disconnect` stays open if the app does not close it (default 10 s). */
  closeAfterDisconnectMs?: number;
  /** How long a URL from `apps.connections.open` can be used (default 30 s). */
  ticketTtlMs?: number;
}

export interface ConnectionRecord {
  id: string;
  openedAt: number;
  helloAt: number;
  closedAt: number | undefined;
  /** `dropped`: ended without a close handshake (a network failure, a killed process, `drop()`). */
  closedBy: ClosedBy | undefined;
  disconnect: { reason: string; at: number } | undefined;
}

export interface AckRecord {
  envelopeId: string;
  connectionId: string;
  at: number;
  /** The `payload` of the ack (a modal's `response_action`, a type-ahead's options), if any. */
  payload: Json | undefined;
  /** Arrived after the deadline (or was made to count as late): Slack acted as if there were none. */
  late: boolean;
  /** False when no envelope has this id. */
  known: boolean;
}

export interface EnvelopeRecord {
  envelopeId: string;
  type: EnvelopeType;
  /** The same for every attempt to deliver one payload. */
  deliveryId: string;
  payload: Json;
  acceptsResponsePayload: boolean;
  retryAttempt: number;
  retryReason: string;
  connectionId: string;
  sentAt: number;
  /** The first ack of this envelope; `acks` counts every ack that named it. */
  ack: AckRecord | undefined;
  acks: number;
}

export interface Undelivered {
  at: number;
  type: EnvelopeType;
  deliveryId: string;
}

export interface Delivery {
  deliveryId: string;
  envelopeId: string;
  /** The ack's payload, when it had one. */
  payload: Json | undefined;
  attempts: number;
}

/** Why a delivery failed, in Slack's words (`dispatch_failed`, `operation_timeout`, `connection_closed`). */
export class DeliveryFailed extends Error {
  constructor(
    readonly reason: string,
    readonly deliveryId: string,
  ) {
    super(`Slack could not deliver the envelope: ${reason}`);
    this.name = "DeliveryFailed";
  }
}

export interface FakeSocketMode {
  connections(): ConnectionRecord[];
  /** Connections that said hello and are not closed. */
  openConnections(): ConnectionRecord[];
  envelopes(filter?: { type?: EnvelopeType; deliveryId?: string }): EnvelopeRecord[];
  acks(): AckRecord[];
  undelivered(): Undelivered[];
  /** The number of open connections, after every change. */
  timeline(): Array<{ at: number; open: number }>;
  /**
   * Sends an envelope over an open connection and resolves with the app's in-time ack. `retry` sends it as
   * Slack's redelivery of an earlier attempt (its `retry_attempt` and `retry_reason`).
   */
  deliver(type: EnvelopeType, payload: Json, retry?: { attempt: number; reason: string }): Promise<Delivery>;
  /** Sends `disconnect` with `reason` to one connection (default: every open one); returns their ids. */
  disconnect(reason: string, connectionId?: string): string[];
  /** Ends connections without a word (default: every open one); returns their ids. */
  drop(connectionId?: string): string[];
  /** The acks of the next `count` envelopes count as late, however fast they come. */
  lateAckNext(count?: number): void;
  /**
   * Half-opens connections (default: every open one): Slack's end stays silent — no pings, no pongs, no
   * envelopes arrive — while the TCP connection stays up, as behind a dead network path.
   */
  stall(connectionId?: string): string[];
}
