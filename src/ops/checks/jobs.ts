/**
 * Failed jobs: placements or Slack posts that used up their attempts. Each one is an order or an update a
 * person is waiting for, so any is worth a warning; what to do is in docs/operations.md.
 */
import { createJobs } from "../../jobs/index.ts";
import type { Store } from "../../store/db.ts";
import { type CheckOutcome, ok, warn } from "../check.ts";

export async function checkFailedJobs(store: Store): Promise<CheckOutcome> {
  // Reading pg-boss's table needs no started queue: nothing is installed, fetched or scheduled here.
  const jobs = createJobs({ store });
  const { rows } = await store.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [
    `${jobs.schema}.job`,
  ]);
  if (!rows[0]?.present) {
    return warn(
      `the job queue (schema ${jobs.schema}) is not installed yet: Order Desk installs it when it starts`,
    );
  }
  const stats = await jobs.stats();
  const entries = Object.entries(stats);
  const failed = entries.reduce((n, [, s]) => n + s.failed, 0);
  const lag = entries
    .filter(([, s]) => s.ready > 0)
    .map(([queue, s]) => `${queue} ${s.ready} waiting, oldest ${Math.round(s.oldestReadyAgeMs / 1000)} s`);
  const backlog = lag.length > 0 ? `; ${lag.join(", ")}` : "";
  if (failed === 0) return ok(`no failed jobs${backlog}`);
  const perQueue = entries
    .filter(([, s]) => s.failed > 0)
    .map(([queue, s]) => `${queue} ${s.failed}`)
    .join(", ");
  return warn(
    `${failed} failed job${failed === 1 ? "" : "s"} (${perQueue})${backlog}: see docs/operations.md, "Failed jobs"`,
  );
}
