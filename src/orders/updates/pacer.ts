/**
 * Slack's posting pace, kept in-process: about one message per second per channel, with a short burst
 * allowed. A token bucket in its "virtual scheduling" form (GCRA): each channel keeps the theoretical time of
 * its next message; a post reserves a slot and is told how long to wait for it. Reservations make concurrent
 * jobs for the same channel queue up instead of all waking at once.
 *
 * After a 429 the channel is paused until Retry-After has passed, whatever the bucket says.
 *
 * In-process only: replicas do not share buckets. With N replicas posting to one channel the worst case is N
 * messages per second, and Slack's 429 + Retry-After (honoured by the job) covers the rest.
 */

import { setTimeout as sleep } from "node:timers/promises";
import { RetryLaterError } from "../../jobs/errors.ts";

export interface PacerOptions {
  /** Sustained messages per second per channel (default 1). */
  perSecond?: number;
  /** Messages that may go at once after a quiet period (default 3). */
  burst?: number;
  now?: () => number;
}

export interface Reservation {
  /** Milliseconds to wait before posting. */
  waitMs: number;
  /** False when the wait exceeded `maxWaitMs`: nothing was reserved, come back in `waitMs`. */
  reserved: boolean;
}

export class ChannelPacer {
  private readonly intervalMs: number;
  private readonly toleranceMs: number;
  private readonly now: () => number;
  /** Per channel: the theoretical arrival time of the next message. */
  private readonly next = new Map<string, number>();

  constructor(options: PacerOptions = {}) {
    const perSecond = options.perSecond ?? 1;
    const burst = Math.max(1, Math.floor(options.burst ?? 3));
    if (!(perSecond > 0)) throw new RangeError("perSecond must be > 0");
    this.intervalMs = 1000 / perSecond;
    this.toleranceMs = (burst - 1) * this.intervalMs;
    this.now = options.now ?? Date.now;
  }

  /** Reserves the channel's next slot if it comes within `maxWaitMs`. */
  reserve(channel: string, maxWaitMs: number): Reservation {
    const now = this.now();
    const tat = Math.max(this.next.get(channel) ?? now, now);
    const waitMs = Math.max(0, tat - this.toleranceMs - now);
    if (waitMs > maxWaitMs) return { waitMs, reserved: false };
    this.next.set(channel, tat + this.intervalMs);
    this.prune(now);
    return { waitMs, reserved: true };
  }

  /** Slack said 429: nothing goes to this channel before `untilMs`, then it restarts at the sustained pace. */
  pauseUntil(channel: string, untilMs: number): void {
    const current = this.next.get(channel) ?? 0;
    this.next.set(channel, Math.max(current, untilMs + this.toleranceMs));
  }

  /** Forgets channels idle long enough to have a full bucket again (keeps the map small). */
  private prune(now: number): void {
    if (this.next.size < 1000) return;
    for (const [channel, tat] of this.next) if (tat < now) this.next.delete(channel);
  }
}

/**
 * Waits for the channel's next slot, up to `maxWaitMs`; a longer wait is handed back to the job queue as a
 * `RetryLaterError` instead of holding a worker.
 */
export async function waitForSlot(
  pacer: ChannelPacer,
  channel: string,
  maxWaitMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const slot = pacer.reserve(channel, maxWaitMs);
  if (!slot.reserved) {
    throw new RetryLaterError(
      slot.waitMs,
      `pacing channel ${channel}: next slot in ${Math.ceil(slot.waitMs)} ms`,
    );
  }
  if (slot.waitMs > 0) await sleep(slot.waitMs, undefined, signal ? { signal } : {});
}
