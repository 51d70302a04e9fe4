import { randomBytes } from "node:crypto";

/** A millisecond clock; tests inject a fake one to make trigger expiry and timestamps deterministic. */
export type Clock = () => number;

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Slack-looking ids (`V0ABC123XYZ`): a prefix and uppercase alphanumerics. */
export function slackId(prefix: string, length = 10): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

/**
 * Message timestamps as Slack writes them (`1700000000.000100`): seconds and six digits of
 * microseconds. Slack guarantees they are unique per channel; we make them unique and strictly
 * increasing for the whole workspace, which also makes thread order equal to posting order.
 */
export class TsSequence {
  private lastMicros = 0n;

  constructor(private readonly clock: Clock) {}

  next(): string {
    let micros = BigInt(Math.floor(this.clock())) * 1000n;
    if (micros <= this.lastMicros) micros = this.lastMicros + 1n;
    this.lastMicros = micros;
    const seconds = micros / 1_000_000n;
    const rest = (micros % 1_000_000n).toString().padStart(6, "0");
    return `${seconds}.${rest}`;
  }
}

/** Trigger ids look like `1234567890123.1234567890.0123456789abcdef0123456789abcdef`. */
export function triggerId(teamNumber: string, clock: Clock): string {
  return `${Math.floor(clock())}.${teamNumber}.${randomBytes(16).toString("hex")}`;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}
