/**
 * One Socket Mode WebSocket as Slack's end holds it: answers the opening handshake, says `hello`, sends text
 * messages and pings, answers the client's pings, and ends the connection the three ways Slack's can end:
 * the app closes it (close handshake), Slack closes it (close frame first), or it drops without a word (the
 * TCP connection destroyed, as when a load balancer or a network path dies).
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import {
  acceptKey,
  encodeClose,
  encodeFrame,
  encodeText,
  FrameReader,
  OPCODE,
  ProtocolError,
} from "./frames.ts";

export type ClosedBy = "app" | "slack" | "dropped";

export interface ConnectionEvents {
  /** A text message from the app (an ack). */
  onText(text: string): void;
  onClosed(by: ClosedBy): void;
}

/** Completes the opening handshake, or answers `status` and closes when the request is not one. */
export function acceptUpgrade(req: IncomingMessage, socket: Duplex): boolean {
  const key = req.headers["sec-websocket-key"];
  const upgrade = String(req.headers.upgrade ?? "").toLowerCase();
  if (typeof key !== "string" || upgrade !== "websocket" || req.headers["sec-websocket-version"] !== "13") {
    refuseUpgrade(socket, 400, "Bad Request");
    return false;
  }
  socket.write(
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Accept: ${acceptKey(key)}\r\n\r\n`,
  );
  return true;
}

export function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export class SocketConnection {
  private readonly reader = new FrameReader();
  private closing = false;
  private closed = false;
  private ended: ClosedBy | undefined;
  private pinger: NodeJS.Timeout | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  /** Stalled: reads nothing, answers nothing (a half-open link). */
  stalled = false;
  pongs = 0;

  constructor(
    private readonly socket: Duplex,
    private readonly events: ConnectionEvents,
    pingIntervalMs: number,
  ) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", () => socket.destroy());
    // The HTTP server keeps sockets half-open: the app's end of the TCP connection ends ours too.
    socket.on("end", () => socket.end());
    socket.on("close", () => this.finish(this.ended ?? "dropped"));
    if (pingIntervalMs > 0) {
      this.pinger = setInterval(() => {
        if (!this.stalled) this.write(encodeFrame(OPCODE.ping, Buffer.from(String(Date.now()))));
      }, pingIntervalMs);
      this.pinger.unref();
    }
  }

  get isOpen(): boolean {
    return !this.closing && !this.closed;
  }

  sendJson(message: unknown): boolean {
    if (!this.isOpen || this.stalled) return false;
    return this.write(encodeText(JSON.stringify(message)));
  }

  /** Slack ends the connection: a close frame, then the TCP connection once the app answered (or 1 s). */
  close(code = 1000, reason = ""): void {
    if (!this.isOpen) return;
    this.closing = true;
    this.ended = "slack";
    this.write(encodeClose(code, reason));
    this.closeTimer = setTimeout(() => this.socket.destroy(), 1_000);
    this.closeTimer.unref();
  }

  /** The connection disappears: no close frame, the TCP connection destroyed. */
  drop(): void {
    if (this.closed) return;
    this.ended = "dropped";
    this.socket.destroy();
  }

  private write(frame: Buffer): boolean {
    if (this.closed || this.socket.destroyed) return false;
    this.socket.write(frame);
    return true;
  }

  private onData(chunk: Buffer): void {
    if (this.stalled) return;
    let messages: ReturnType<FrameReader["push"]>;
    try {
      messages = this.reader.push(chunk);
    } catch (error) {
      const code = error instanceof ProtocolError ? error.closeCode : 1002;
      this.write(encodeClose(code, (error as Error).message.slice(0, 100)));
      this.ended = "slack";
      this.socket.end();
      return;
    }
    for (const { opcode, payload } of messages) {
      if (opcode === OPCODE.text) this.events.onText(payload.toString("utf8"));
      else if (opcode === OPCODE.ping) this.write(encodeFrame(OPCODE.pong, payload));
      else if (opcode === OPCODE.pong) this.pongs++;
      else if (opcode === OPCODE.close) this.onClose(payload);
    }
  }

  private onClose(payload: Buffer): void {
    if (this.closing) {
      // Our close, answered: the server ends the TCP connection (RFC 6455 §7.1.1).
      this.socket.end();
      return;
    }
    this.closing = true;
    this.ended = "app";
    const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1000;
    this.write(encodeClose(code === 1005 || code === 1006 ? 1000 : code));
    this.socket.end();
  }

  private finish(by: ClosedBy): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pinger);
    clearTimeout(this.closeTimer);
    this.events.onClosed(by);
  }
}
