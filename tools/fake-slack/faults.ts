/**
 * Fault injection: what a flaky or busy Slack does to a client. Each rule matches a method (or every
 * method), and optionally the call's `channel` (a DM to one user), and is consumed as calls arrive, so a test
 * says exactly how many calls fail.
 */

export type Fault =
  | { kind: "rate_limit"; retryAfterSec: number }
  | { kind: "error"; error: string }
  | { kind: "http"; status: number; body: string }
  | { kind: "hang" }
  /** Slack does the work, then the connection drops before the answer: the caller cannot tell it happened. */
  | { kind: "lost_answer" }
  /**
   * Slack does the work at once but answers only after `delayMs`: a caller whose timeout is shorter has given up
   * (and may try again) although the call took effect.
   */
  | { kind: "late_answer"; delayMs: number }
  /**
   * Slack has not taken the call yet: it waits until the test releases it, then is handled as any other call. Two
   * callers' steps can so be put in a chosen order (one's post held while the other runs).
   */
  | { kind: "hold"; gate: HeldCall };

/** A call held by a `hold` fault: `arrived` once it reached Slack, handled after `release()`. */
export class HeldCall {
  readonly arrived: Promise<void>;
  readonly released: Promise<void>;
  #arrive!: () => void;
  #release!: () => void;

  constructor() {
    this.arrived = new Promise((resolve) => {
      this.#arrive = resolve;
    });
    this.released = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  arrive(): void {
    this.#arrive();
  }

  release(): void {
    this.#release();
  }
}

interface Rule {
  method: string | undefined;
  /** Only calls whose `channel` argument is this (a channel id, or the user id a DM is posted to). */
  channel?: string | undefined;
  /** Only calls whose `text` argument contains this (one kind of post among several to the same channel). */
  text?: string | undefined;
  remaining: number;
  fault: Fault;
}

export class Faults {
  private rules: Rule[] = [];
  private latency = new Map<string, number>();

  add(method: string | undefined, count: number, fault: Fault, channel?: string, text?: string): void {
    if (count > 0) this.rules.push({ method, channel, text, remaining: count, fault });
  }

  setLatency(ms: number, method?: string): void {
    this.latency.set(method ?? "*", ms);
  }

  latencyFor(method: string): number {
    return this.latency.get(method) ?? this.latency.get("*") ?? 0;
  }

  /** Takes the first matching rule's next fault, if any. */
  take(method: string, channel?: string, text?: string): Fault | undefined {
    const rule = this.rules.find(
      (r) =>
        r.remaining > 0 &&
        (r.method === undefined || r.method === method) &&
        (r.channel === undefined || r.channel === channel) &&
        (r.text === undefined || (text ?? "").includes(r.text)),
    );
    if (!rule) return undefined;
    rule.remaining -= 1;
    this.rules = this.rules.filter((r) => r.remaining > 0);
    return rule.fault;
  }

  clear(): void {
    this.rules = [];
    this.latency.clear();
  }
}

/**
 * Slack's per-channel posting pace ("about one message per second per channel, short bursts allowed")
 * as a token bucket; off unless configured.
 */
export class ChannelPace {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** Seconds to wait before this channel accepts another post, or 0 if it accepts now (and counts it). */
  check(channel: string, now: number): number {
    const b = this.buckets.get(channel) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    this.buckets.set(channel, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
  }
}

/** The methods Slack limits for apps distributed outside its Marketplace. */
export const LIMITED_HISTORY_METHODS: ReadonlySet<string> = new Set([
  "conversations.history",
  "conversations.replies",
]);

/**
 * Slack's budget for `conversations.history` and `conversations.replies` of an app distributed outside its
 * Marketplace (since 2025): one call a minute per method, at most 15 messages a call (a larger `limit` is cut to
 * 15). Off unless configured; tests inject the clock.
 */
export class LimitedHistory {
  private readonly last = new Map<string, number>();

  constructor(
    readonly intervalMs = 60_000,
    readonly maxMessages = 15,
  ) {}

  /** Seconds until `method` may be called again, or 0 if it may now (and the call is counted). */
  check(method: string, now: number): number {
    const last = this.last.get(method);
    if (last !== undefined && now - last < this.intervalMs) {
      return Math.max(1, Math.ceil((last + this.intervalMs - now) / 1000));
    }
    this.last.set(method, now);
    return 0;
  }

  /** The `limit` argument as Slack applies it under the budget. */
  limit(asked: unknown): string {
    const n = asked === undefined ? this.maxMessages : Number(asked);
    return String(Number.isInteger(n) && n > 0 ? Math.min(n, this.maxMessages) : asked);
  }
}
