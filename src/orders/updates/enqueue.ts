/**
 * Enqueues the `post-update` job for an order. One job per event (its id derived from the event id, so a
 * redelivered event never adds a second job); whichever job runs first posts every unposted event of the
 * order in `occurredAt` order and the others find nothing left — that is how a reordered delivery that
 * arrives within the settle delay still lands in the right place in the thread.
 */

import { jobId } from "../../jobs/ids.ts";
import type { Jobs, ManyJob } from "../../jobs/jobs.ts";
import type { PostUpdateJobData } from "../../jobs/payloads.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { Queryable } from "../../store/db.ts";

/** The `post-update` job's payload (its schema: jobs/payloads.ts). */
export type { PostUpdateJobData } from "../../jobs/payloads.ts";

export interface EnqueueOptions {
  /** Enqueue inside this transaction (the event's INSERT): no event without its job, no job without its event. */
  tx?: Queryable;
  /** Wait this long before posting, so reordered deliveries can arrive and be sorted first. */
  settleMs?: number;
  now?: () => number;
  /** When the job may start (ms since epoch); overrides `settleMs`. */
  startAt?: number;
  /** Job id instead of the event's (the sweep re-enqueues a stalled order under a new one). */
  id?: string;
}

export function postUpdateJobId(eventId: string): string {
  return jobId(QUEUES.postUpdate, eventId);
}

export async function enqueuePostUpdate(
  jobs: Pick<Jobs, "send">,
  data: PostUpdateJobData,
  options: EnqueueOptions = {},
): Promise<void> {
  const now = options.now ?? Date.now;
  const startAt = options.startAt ?? now() + (options.settleMs ?? 0);
  await jobs.send(QUEUES.postUpdate, data, {
    id: options.id ?? postUpdateJobId(data.eventId),
    ...(startAt > now() && { startAfter: new Date(startAt) }),
    ...(options.tx && { tx: options.tx }),
  });
}

/** The same job as `enqueuePostUpdate`'s, for `jobs.sendMany` (the webhook receiver's group commit). */
export function postUpdateJob(
  data: PostUpdateJobData,
  startAt: number,
  now: () => number,
): ManyJob<PostUpdateJobData> {
  return {
    data,
    id: postUpdateJobId(data.eventId),
    ...(startAt > now() && { startAfter: new Date(startAt) }),
  };
}
