import { defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/slow-first.ts";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/reliability/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One file per core. Vitest's default for `run` is one less than the cores, one worker on a 2-core CI
    // machine, which then sits idle whenever a test waits (on a timer, a poll, a child process, PostgreSQL).
    maxWorkers: "100%",
    sequence: { sequencer: SlowFirstSequencer },
    globalSetup: [],
  },
});
