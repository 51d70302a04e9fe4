import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { type FetchedJob, outcomeRetryDelayMs, QueueWorker, type WorkerDeps } from "../../src/jobs/worker.ts";

function job(id: string): FetchedJob {
  return {
    id,
    data: {},
    retryCount: 0,
    retryLimit: 3,
    expireInSeconds: 300,
    createdOn: new Date(),
    output: null,
  };
}

describe("recording a job's outcome while the database is away", () => {
  it("tries again with growing waits for about 16 s, then leaves the job to its expiry", () => {
    const delays: number[] = [];
    for (let tries = 0; ; tries++) {
      const delay = outcomeRetryDelayMs(tries);
      if (delay === null) break;
      delays.push(delay);
    }
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
    const total = delays.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(10_000);
    expect(total).toBeLessThanOrEqual(20_000);
  });

  it("completes a job once the database answers again instead of leaving it active until it expires", async () => {
    const pending = [job("j1")];
    let refusals = 2;
    const completed: string[] = [];
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    // The worker's narrow port to pg-boss, answering as a database that is restarting for two attempts.
    const deps: WorkerDeps = {
      fetch: async () => pending.splice(0),
      complete: async (_queue, id) => {
        if (refusals-- > 0) throw new Error("Connection terminated unexpectedly");
        completed.push(id);
        done();
      },
      fail: async () => {},
      failPermanently: async () => {},
      defer: async () => {},
      requeue: async () => {},
      scheduleWake: () => {},
    };
    let runs = 0;
    const worker = new QueueWorker(
      "place-order",
      async () => void runs++,
      1,
      50,
      deps,
      pino({ level: "silent" }),
    );
    worker.start();
    await finished;
    await worker.stopFetching();
    expect(completed).toEqual(["j1"]);
    expect(runs).toBe(1);
  });
});
