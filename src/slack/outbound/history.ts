/**
 * How Order Desk reads conversations (`conversations.history`, `conversations.replies`): only to find a message an
 * interrupted attempt may have posted (after a crash or a lost answer), never on the path of a user's request or a
 * first post. Slack limits these two methods, for apps distributed outside its Marketplace, to one call a minute
 * and 15 messages a call (docs/slack-setup.md); apps a company builds for its own workspace, as Order Desk is
 * installed, are exempt. Reading works within the limited budget anyway:
 *
 * - pages of 15 messages, and only the messages since the attempt (`oldest`), so one page is the usual search;
 * - one `HistoryPace` per process spaces these calls out (a pause between pages, 1 s by default);
 * - a 429 waits its Retry-After and asks for the same page again, and slows the pace to one call a minute for the
 *   rest of the process's life: an app under the limited budget then makes no more calls than it may.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { WebClient } from "./client.ts";
import { toSlackCallError } from "./errors.ts";

/** Messages asked for per page: the most Slack returns to an app under the limited budget. */
export const HISTORY_PAGE_LIMIT = 15;
/** The limited budget's pace: one call a minute. Retry-After only says when the current minute ends. */
export const LIMITED_INTERVAL_MS = 60_000;

export interface HistoryPaceOptions {
  /** The least time between two history calls of this process; default 1000 ms. */
  intervalMs?: number;
  /** 429s answered to one call before it gives up (and its caller retries later); default 3. */
  rateLimitedAttempts?: number;
  /** Milliseconds; tests inject the fake Slack's clock. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class HistoryPace {
  #intervalMs: number;
  #next = 0;
  readonly #attempts: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: HistoryPaceOptions = {}) {
    this.#intervalMs = options.intervalMs ?? 1_000;
    this.#attempts = options.rateLimitedAttempts ?? 3;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms, signal) => sleep(ms, undefined, { signal }));
  }

  /** The current least time between calls (raised by a 429). */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** Runs one history call in its turn; on a 429, waits, slows the pace, and calls again. */
  async call<T>(
    method: string,
    fn: () => Promise<T>,
    options: { signal?: AbortSignal | undefined; onRateLimited?: (method: string) => void } = {},
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      options.signal?.throwIfAborted();
      // Reserve the slot before waiting, so calls waiting at once get consecutive slots.
      const now = this.#now();
      const slot = Math.max(now, this.#next);
      this.#next = slot + this.#intervalMs;
      if (slot > now) await this.#sleep(slot - now, options.signal);
      try {
        return await fn();
      } catch (error) {
        const { retryAfterMs } = toSlackCallError(method, error);
        if (retryAfterMs === null) throw error;
        options.onRateLimited?.(method);
        this.#intervalMs = Math.max(this.#intervalMs, retryAfterMs, LIMITED_INTERVAL_MS);
        this.#next = Math.max(this.#next, this.#now() + retryAfterMs);
        if (attempt >= this.#attempts) throw error;
      }
    }
  }
}

/** Slack's `oldest`: seconds with microseconds, a little before `at` for the clocks' skew. */
export function oldestBefore(at: Date, skewMs = 60_000): string {
  return ((at.getTime() - skewMs) / 1000).toFixed(6);
}

/** A page of `conversations.history` or `conversations.replies`, as far as finding a message needs it. */
export interface HistoryPage {
  messages?: { ts?: string; metadata?: { event_type?: string; event_payload?: unknown } }[];
  response_metadata?: { next_cursor?: string };
}

/** A message whose metadata is of `eventType` and whose payload's `key` is `value`. */
export function withMetadata(eventType: string, key: string, value: string) {
  return (message: NonNullable<HistoryPage["messages"]>[number]): boolean =>
    message.metadata?.event_type === eventType &&
    (message.metadata.event_payload as Record<string, unknown> | undefined)?.[key] === value;
}

/**
 * Reads page after page (`read` is given the cursor; it makes the paced call) until a message matches: its ts, or
 * null when the pages end. The one pager of every search for a message an interrupted attempt may have posted.
 */
export async function findInPages(
  read: (cursor: string | undefined) => Promise<HistoryPage>,
  matches: (message: NonNullable<HistoryPage["messages"]>[number]) => boolean,
): Promise<string | null> {
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    const found = (page.messages ?? []).find(matches);
    if (found) return found.ts ?? null;
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return null;
}

/** Where to look for a message of ours an interrupted attempt may have posted, and how to recognise it. */
export interface FindPostedArgs {
  channel: string;
  /** A reply in this thread (`conversations.replies`); without it, a message of the channel (`conversations.history`). */
  threadTs?: string | undefined;
  /** The earliest recorded attempt: only the messages since then (less the clocks' skew) are read. */
  attemptedAt: Date;
  /** The message's `metadata.event_type`; its `event_payload[idKey]` (default `event_id`) is `eventId`. */
  eventType: string;
  eventId: string;
  idKey?: string;
}

/**
 * The ts of our message with this metadata posted since `attemptedAt` in the thread or the channel, or null; read
 * at `history`'s pace. Throws the client's errors (`missing_scope` when the app lacks the history scopes).
 */
export function findPosted(
  client: WebClient,
  history: HistoryPace,
  args: FindPostedArgs,
  options: { signal?: AbortSignal | undefined; onRateLimited?: (method: string) => void } = {},
): Promise<string | null> {
  const { channel, threadTs } = args;
  const oldest = oldestBefore(args.attemptedAt);
  return findInPages(
    (cursor) => {
      const page = {
        channel,
        limit: HISTORY_PAGE_LIMIT,
        include_all_metadata: true,
        oldest,
        ...(cursor && { cursor }),
      };
      return threadTs
        ? history.call(
            "conversations.replies",
            () => client.conversations.replies({ ...page, ts: threadTs }),
            options,
          )
        : history.call("conversations.history", () => client.conversations.history(page), options);
    },
    withMetadata(args.eventType, args.idKey ?? "event_id", args.eventId),
  );
}
