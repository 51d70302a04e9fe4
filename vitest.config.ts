import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/reliability/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two test files at a time, whatever the core count (Vitest's default is cores − 1: one file at a time on a
    // 2-core machine). The suite mostly waits (fake servers, the sandbox's fulfilment, job retries in seconds,
    // child processes): six of the slowest Slack and webhook files used 45–50 s of CPU in 130–140 s of wall
    // time with one worker, and ran in 71 s with two (60 s with three). Two keeps a starved CI machine's files
    // from timing out each other; `--maxWorkers=N` overrides it.
    maxWorkers: 2,
    globalSetup: [],
  },
});
