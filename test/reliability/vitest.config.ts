import { defineConfig } from "vitest/config";

/**
 * `npm run test:reliability`: the crash, fault and hostile-input scenarios (docs/reliability.md). Three files
 * at a time: the scenarios mostly wait (restarts, recoveries, the sandbox's fulfilment), so on a 2-core machine
 * three used 554 s of CPU in 522 s (two: ≈ 700 s); each scenario records its figures and the global teardown
 * prints the table.
 */
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/reliability/**/*.test.ts"],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 3,
    globalSetup: ["test/reliability/global-setup.ts"],
    reporters: ["default"],
  },
});
