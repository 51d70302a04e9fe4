import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/store/group-commit.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("group commit", () => {
  it("gathers writes of the same event-loop turn, and those arriving during a commit, into one batch each", async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, string>(async (items) => {
      batches.push([...items]);
      await tick();
      return items.map((n) => `ok ${n}`);
    });
    const first = [1, 2].map((n) => group.submit(n));
    await new Promise((resolve) => setImmediate(resolve));
    const during = [3, 4, 5].map((n) => group.submit(n));
    expect(await Promise.all([...first, ...during])).toEqual(["ok 1", "ok 2", "ok 3", "ok 4", "ok 5"]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it("keeps batches within maxBatch and runs up to `concurrency` at once", async () => {
    let running = 0;
    let most = 0;
    const sizes: number[] = [];
    const group = new GroupCommit<number, number>(
      async (items) => {
        running++;
        most = Math.max(most, running);
        sizes.push(items.length);
        await tick();
        running--;
        return [...items];
      },
      { concurrency: 2, maxBatch: 3 },
    );
    const all = Array.from({ length: 20 }, (_, i) => i);
    expect(await Promise.all(all.map((n) => group.submit(n)))).toEqual(all);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(most).toBe(2);
  });

  it("retries each item of a failed batch alone, so only the bad one fails", async () => {
    const group = new GroupCommit<number, number>(async (items) => {
      await tick();
      if (items.includes(13)) throw new Error("13 cannot be stored");
      return items.map((n) => n * 2);
    });
    const answers = await Promise.allSettled([1, 2, 13, 4].map((n) => group.submit(n)));
    expect(answers.map((a) => (a.status === "fulfilled" ? a.value : (a.reason as Error).message))).toEqual([
      2,
      4,
      "13 cannot be stored",
      8,
    ]);
  });
});
