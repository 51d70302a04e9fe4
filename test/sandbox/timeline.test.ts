/**
 * The fulfilment timeline under an injected clock: every event occurs exactly at `acceptedAt + offset / speed`,
 * so `--speed` scales the realistic timeline and nothing waits for real time. With a webhook the scheduler emits
 * the events on the clock's timers; without one, progress is computed from the plan when looked at.
 */
import { setImmediate as tick } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock, TimerHandle } from "../../src/sandbox/clock.ts";
import { startSandbox } from "../../src/sandbox/sandbox.ts";
import { createOrder, dispatcher, KEY, type Receiver, startReceiver, validOrder } from "./support.ts";

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver(() => 204);
});
afterAll(async () => {
  await receiver.close();
  await dispatcher.close();
});

class ManualClock implements Clock {
  private timers: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  constructor(private time: number) {}

  now(): number {
    return this.time;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.time + Math.max(0, ms), fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Moves time forward, firing due timers in order and letting the work they start settle. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      for (let i = 0; i < 5; i++) await tick();
      this.timers = this.timers.filter((t) => !t.cancelled);
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.time = Math.max(this.time, next.at);
      this.timers.splice(this.timers.indexOf(next), 1);
      next.fn();
    }
    this.time = end;
    for (let i = 0; i < 5; i++) await tick();
  }
}

describe("fulfilment timeline", () => {
  it.each([
    [1, "webhook"],
    [10, "webhook"],
    [1, "none"],
    [10, "none"],
  ] as const)(
    "has each step occur at acceptedAt + offset / speed (speed %d, webhook: %s)",
    async (speed, mode) => {
      const clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
      const sandbox = await startSandbox({
        apiKeys: [KEY],
        speed,
        seed: "timeline",
        clock,
        ...(mode === "webhook" && { webhookUrl: receiver.url }),
      });
      try {
        const placed = await createOrder(
          sandbox.url,
          validOrder({ orderLines: [{ itemNumber: "A", quantity: 1 }] }),
        );
        const id = placed.json.data.correlationId as string;
        const before = await sandbox.order(id);
        const due = [
          ...(before?.events.map((e) => Date.parse(e.emittedAt)) ?? []),
          ...(before?.upcoming.map((step) => Date.parse(step.dueAt)) ?? []),
        ];
        expect(due).toHaveLength(before?.eventsPlanned ?? -1);
        // Strictly increasing, even for steps planned at the same moment: consumers may order by occurredAt alone.
        for (let i = 1; i < due.length; i++) expect(due[i]).toBeGreaterThan(due[i - 1] as number);
        const acceptedAt = Date.parse(before?.acceptedAt ?? "");
        expect(due[0]).toBe(acceptedAt);
        // The whole realistic plan lasts ~38 minutes; at speed 10 a tenth of it.
        const span = (due.at(-1) ?? 0) - acceptedAt;
        expect(span).toBeGreaterThan((25 * 60_000) / speed);
        expect(span).toBeLessThan((50 * 60_000) / speed);

        await clock.advance(span / 2);
        const half = await sandbox.order(id);
        expect(half?.events.length).toBeGreaterThan(0);
        expect(half?.events.length).toBeLessThan(due.length);

        await clock.advance(span);
        const done = await sandbox.order(id);
        expect(done?.status).toBe("delivered");
        expect(done?.events.map((e) => Date.parse(e.event.occurredAt))).toEqual(due);
      } finally {
        await sandbox.close();
      }
    },
  );
});
