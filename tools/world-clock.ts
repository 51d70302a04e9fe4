/**
 * A world's time for the demo and the end-to-end tests: the wall clock moved to a chosen instant when the world
 * starts, running on from there, so waits and timers still take real time. The parties that read dates read this
 * one: the sandbox's fulfilment (its acceptance, estimates and event times) and Order Desk's clock (today, lead
 * times, at risk, the dates in its messages). A run then gives the same days whatever the hour and, with the
 * instant chosen relative to the run (`latestNoonUtc`), the same story on any day.
 *
 * What stays on the wall clock, on both sides of each comparison: signatures (the sandbox's webhooks, Slack's
 * requests; each receiver checks them against its own wall clock), the fake Slack's message timestamps (Order Desk
 * compares them with times its database recorded) and the database's now(), which runs the jobs. So the instant
 * is never in the future: a job Order Desk schedules by its clock is never due later than it means, at most the
 * offset sooner, and the handlers of such jobs (a workflow step's deadline, the watchdog's checks, an approval's
 * reminder and expiry) look at the app's clock before they act.
 */
import type { Clock } from "../src/sandbox/clock.ts";
import { systemClock } from "../src/sandbox/clock.ts";

export interface WorldClock {
  /** Where the clock started (ms since the epoch). */
  readonly startAt: number;
  /** Milliseconds since the epoch, in the world's time. */
  ms(): number;
  /** Order Desk's `now` (StartOptions.now). */
  now(): Date;
  /** The sandbox's clock (SandboxOptions.clock): the world's time, the wall clock's timers. */
  readonly sandbox: Clock;
}

/** A clock at `startAt` now, running on with `wall` (default the real clock). */
export function worldClock(startAt: number, wall: () => number = Date.now): WorldClock {
  const offsetMs = startAt - wall();
  const ms = () => wall() + offsetMs;
  return {
    startAt,
    ms,
    now: () => new Date(ms()),
    sandbox: { now: ms, setTimer: (fn, delayMs) => systemClock.setTimer(fn, delayMs) },
  };
}

const DAY_MS = 86_400_000;
const NOON_MS = 12 * 3_600_000;

/**
 * 12:00 UTC today, or yesterday before then: the latest noon that has passed. At noon UTC the calendar date is the
 * same from UTC−11 to UTC+11 (and the local time between 00:00 and 02:00 elsewhere), so a run of under ten hours
 * never sees the day turn in any customer's time zone. Less than a day behind the wall clock: a job Order Desk
 * schedules (an approval's reminder, its expiry) comes up on the queue less than a day before its time, and its
 * handler waits for the app's clock.
 */
export function latestNoonUtc(wallMs: number = Date.now()): number {
  const noon = Math.floor(wallMs / DAY_MS) * DAY_MS + NOON_MS;
  return noon <= wallMs ? noon : noon - DAY_MS;
}
