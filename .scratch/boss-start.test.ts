import { openTestStore } from "../test/helpers/db.ts";
import { createJobs } from "../src/jobs/index.ts";
import { test } from "vitest";
test("x", async () => {
const store = await openTestStore("pglite");
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  const jobs = createJobs({ store });
  await jobs.start();
  const t2 = performance.now();
  await jobs.stop({ graceMs: 0 });
  console.log(`start ${i}: ${(t2 - t).toFixed(0)} ms, stop ${(performance.now() - t2).toFixed(0)} ms`);
}
await store.close();
}, 120000);
