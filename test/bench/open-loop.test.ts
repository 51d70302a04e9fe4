import { describe, expect, it } from "vitest";
import { dueBy, scheduledAt, summarizeOpenLoop } from "../../bench/lib/open-loop.ts";

describe("open-loop load arithmetic", () => {
  it("schedules arrivals at a fixed rate, whatever has been answered", () => {
    expect(scheduledAt(0, 200)).toBe(0);
    expect(scheduledAt(1, 200)).toBe(5);
    expect(scheduledAt(400, 200)).toBe(2000);
    expect(dueBy(-1, 200, 4000)).toBe(0);
    expect(dueBy(0, 200, 4000)).toBe(1);
    expect(dueBy(4.9, 200, 4000)).toBe(1);
    expect(dueBy(5, 200, 4000)).toBe(2);
    // A tick that comes late owes the whole backlog at once…
    expect(dueBy(1000, 200, 4000)).toBe(201);
    // …and never more than the run's total.
    expect(dueBy(60_000, 200, 4000)).toBe(4000);
  });

  it("measures latency from the scheduled time, so a stall shows in every request it delayed", () => {
    const summary = summarizeOpenLoop(
      [
        // Sent on time, answered in 2 ms.
        { scheduledMs: 0, doneMs: 2, status: 200 },
        // Due at 5 and 10 ms but held up by a 100 ms stall: both answered at 102 ms.
        { scheduledMs: 5, doneMs: 102, status: 200 },
        { scheduledMs: 10, doneMs: 102, status: 200 },
        { scheduledMs: 15, doneMs: 120, status: 503 },
        { scheduledMs: 20, doneMs: null, status: null },
      ],
      200,
    );
    expect(summary.offered).toBe(5);
    expect(summary.ok).toBe(3);
    expect(summary.errors).toBe(2);
    expect(summary.statusCodes).toEqual({ "200": 3, "503": 1, error: 1 });
    expect(summary.latency.p50).toBe(92);
    expect(summary.latency.max).toBe(97);
  });
});
