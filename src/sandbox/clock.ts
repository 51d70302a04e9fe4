/**
 * Time as the sandbox sees it: wall clock and timers behind one interface, so tests can drive the fulfilment
 * timeline and the retry schedule without waiting for them.
 */

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` after `ms`; the timer never keeps the process alive on its own. */
  setTimer(fn: () => void, ms: number): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

/** ISO 8601 with an explicit `+00:00` offset, as the spec asks of `meta.timestamp`. */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "+00:00");
}

/** `YYYY-MM-DD` (UTC) of a time. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
