/**
 * The server side of a WebSocket (RFC 6455), as much as Slack's Socket Mode endpoint needs: the opening
 * handshake's accept key, and frames in both directions (text, close, ping, pong; fragmented messages
 * reassembled). No extensions are agreed, so nothing is compressed. Written here rather than taken from a
 * package because the app's client (@slack/socket-mode 3) uses undici's WebSocket, so no WebSocket server
 * package is in the tree, and a fake that controls every byte can also misbehave on purpose (drop a
 * connection without a close frame, stop answering pings).
 */
import { createHash } from "node:crypto";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

export const OPCODE = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

/** `Sec-WebSocket-Accept` for the client's `Sec-WebSocket-Key`. */
export function acceptKey(key: string): string {
  return createHash("sha1").update(`${key}${GUID}`).digest("base64");
}

/** One frame from the server (never masked, always final). */
export function encodeFrame(opcode: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const length = payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.alloc(2);
    header[1] = length;
  } else if (length < 65_536) {
    header = Buffer.alloc(4);
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  header[0] = 0x80 | opcode;
  return Buffer.concat([header, payload]);
}

export function encodeText(text: string): Buffer {
  return encodeFrame(OPCODE.text, Buffer.from(text, "utf8"));
}

export function encodeClose(code: number, reason = ""): Buffer {
  const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
  payload.writeUInt16BE(code, 0);
  payload.write(reason, 2);
  return encodeFrame(OPCODE.close, payload);
}

/** A complete message (data frames reassembled) or a control frame, as received from the client. */
export interface Incoming {
  opcode: number;
  payload: Buffer;
}

export class ProtocolError extends Error {
  constructor(
    message: string,
    /** The close code to answer with (1002 protocol error, 1009 too big). */
    readonly closeCode: number,
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

/**
 * Parses the client's byte stream into messages. Client frames must be masked (RFC 6455 §5.1); control
 * frames may arrive between the fragments of a data message.
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentOpcode = 0;

  constructor(private readonly maxMessageBytes = 16 * 1024 * 1024) {}

  push(chunk: Buffer): Incoming[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const out: Incoming[] = [];
    for (;;) {
      const frame = this.nextFrame();
      if (!frame) return out;
      const message = this.assemble(frame);
      if (message) out.push(message);
    }
  }

  private nextFrame(): { fin: boolean; opcode: number; payload: Buffer } | null {
    const b = this.buffered;
    if (b.length < 2) return null;
    const first = b[0] as number;
    const second = b[1] as number;
    if ((first & 0x70) !== 0) throw new ProtocolError("reserved bits set without an extension", 1002);
    if ((second & 0x80) === 0) throw new ProtocolError("client frame not masked", 1002);
    let length = second & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (b.length < 4) return null;
      length = b.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (b.length < 10) return null;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.maxMessageBytes)) throw new ProtocolError("frame too large", 1009);
      length = Number(big);
      offset = 10;
    }
    if (length > this.maxMessageBytes) throw new ProtocolError("frame too large", 1009);
    if (b.length < offset + 4 + length) return null;
    const mask = b.subarray(offset, offset + 4);
    const payload = Buffer.from(b.subarray(offset + 4, offset + 4 + length));
    for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (mask[i & 3] as number);
    this.buffered = b.subarray(offset + 4 + length);
    return { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload };
  }

  private assemble(frame: { fin: boolean; opcode: number; payload: Buffer }): Incoming | null {
    const { fin, opcode, payload } = frame;
    if (opcode >= 0x8) {
      if (!fin || payload.length > 125) throw new ProtocolError("invalid control frame", 1002);
      return { opcode, payload };
    }
    if (opcode === OPCODE.continuation) {
      if (this.fragments.length === 0) throw new ProtocolError("continuation without a message", 1002);
      this.fragments.push(payload);
    } else {
      if (this.fragments.length > 0) throw new ProtocolError("new message inside a fragmented one", 1002);
      this.fragmentOpcode = opcode;
      this.fragments = [payload];
    }
    const size = this.fragments.reduce((n, f) => n + f.length, 0);
    if (size > this.maxMessageBytes) throw new ProtocolError("message too large", 1009);
    if (!fin) return null;
    const message = { opcode: this.fragmentOpcode, payload: Buffer.concat(this.fragments) };
    this.fragments = [];
    return message;
  }
}
