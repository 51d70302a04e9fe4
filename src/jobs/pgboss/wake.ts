/**
 * Wakes this process's workers when it sends a job, so the job starts within milliseconds instead of at the
 * next poll; a job due later gets a timer for when it is due. Jobs sent by other processes are found by the
 * workers' regular poll.
 */
import type { QueueName } from "../queues.ts";

/** The resolution of PGlite's clock (`now()`), in milliseconds. */
const PGLITE_CLOCK_TICK_MS = 1;

export interface WakeTimers {
  /** Wakes the queue's worker in `delayMs` (≤ 0: now), if this process works that queue and has started. */
  schedule(queue: QueueName, delayMs: number): void;
  /** Cancels every pending wake-up (shutdown). */
  clear(): void;
}

export interface WakeTimersOptions {
  /** The store is the embedded PGlite (its clock ticks in whole milliseconds). */
  pglite: boolean;
  /** The queue's worker in this process, or undefined when there is none or the jobs are not running. */
  worker(queue: QueueName): { wake(): void } | undefined;
}

export function createWakeTimers(options: WakeTimersOptions): WakeTimers {
  const timers = new Set<NodeJS.Timeout>();
  return {
    schedule(queue, delayMs) {
      const worker = options.worker(queue);
      if (!worker) return;
      // PGlite's now() ticks in whole milliseconds and pg-boss fetches only jobs with start_after < now(): a
      // fetch in the same millisecond as the send finds nothing and leaves the job to the next poll. Wake a
      // tick later.
      if (delayMs <= 0 && !options.pglite) return worker.wake();
      // Past the 32-bit timer limit the regular poll picks it up.
      if (delayMs > 2 ** 31 - 1) return;
      // A few ms late on purpose: woken exactly on time, the fetch can run before the database's now() passes
      // the job's start_after, find nothing, and leave the job to the next poll.
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          worker.wake();
        },
        delayMs <= 0 ? PGLITE_CLOCK_TICK_MS + 1 : delayMs + 5,
      );
      timer.unref();
      timers.add(timer);
    },
    clear() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
