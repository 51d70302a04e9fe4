/**
 * Puts back in the queue the active jobs a dead process left behind (`where` picks them). The interrupted run
 * counts as an attempt, so a job that kills its process every time still ends (failed, with its reason).
 */
import type { Logger } from "pino";
import type { Store } from "../../store/db.ts";

export async function requeueInterrupted(
  store: Store,
  target: { jobTable: string; schema: string },
  where: { sql: string; params: unknown[] },
  logger: Logger,
  reason = "interrupted: the process running it stopped",
): Promise<{ name: string; id: string; state: string }[]> {
  const { rows } = await store.query<{ name: string; id: string; state: string }>(
    `UPDATE ${target.jobTable} SET
       state = CASE WHEN retry_count < retry_limit THEN 'retry' ELSE 'failed' END::${target.schema}.job_state,
       completed_on = CASE WHEN retry_count < retry_limit THEN NULL ELSE now() END,
       start_after = now(),
       output = jsonb_build_object('message', $${where.params.length + 1}::text)
     WHERE state = 'active' AND (${where.sql})
     RETURNING name, id, state`,
    [...where.params, reason],
  );
  for (const row of rows) {
    logger.warn({ queue: row.name, jobId: row.id, state: row.state }, reason);
  }
  return rows;
}
