import { defineConfig } from "vitest/config";

/**
 * `npm run test:reliability`: the crash, fault and hostile-input scenarios (docs/reliability.md). Two files
 * at a time on a 2-core machine; each scenario records its figures and the global teardown prints the table.
 */
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/reliability/**/*.test.ts"],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    globalSetup: ["test/reliability/global-setup.ts"],
    reporters: ["default"],
  },
});
