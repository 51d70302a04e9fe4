/**
 * The order test files start in: the longest first, so that with several workers the run does not end with one
 * long file alone on one worker. Vitest orders a run by the last run's durations from its cache, and without a
 * cache (a clean clone: CI) by file size, which puts the longest files (a demo run, whole apps started many
 * times) near the end. These lead in either case; the rest keep Vitest's order. Measured on a 2-core machine:
 * each takes 20 s to 2 min where most files take a few seconds. Not a list to keep complete: a file missing
 * from it only starts later.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

export const SLOW_FIRST: readonly string[] = [
  "test/demo/demo.test.ts",
  "test/store/data-template.test.ts",
  "test/webhooks/dialects-e2e.test.ts",
  "test/slack/operator-actions.test.ts",
  "test/main/supplier-key.test.ts",
  "test/orders/watchdog-e2e.test.ts",
  "test/slack/socket-mode.test.ts",
  "test/main/start.test.ts",
  "test/webhooks/milestones.test.ts",
  "test/webhooks/unreadable.test.ts",
  "test/jobs/crash.test.ts",
  "test/webhooks/posting.test.ts",
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((path) => spec.moduleId.endsWith(`/${path}`));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the files not listed keep Vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
