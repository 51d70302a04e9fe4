/**
 * The jobs boundary: where a fetched job becomes a typed call. Its payload is parsed once with its queue's
 * schema (payloads.ts); a payload that does not fit fails the job for good (retrying cannot fix it). Jobs an
 * earlier version queued in another shape go to the handler of their kind (legacy.ts).
 */
import { PermanentJobError, UnknownQueueError } from "./errors.ts";
import { routeLegacy } from "./legacy.ts";
import { JOB_PAYLOADS, type JobData } from "./payloads.ts";
import type { QueueName } from "./queues.ts";
import type { JobHandler } from "./worker.ts";

export type Handlers = { [Q in QueueName]?: JobHandler<JobData<Q>> };

/** The untyped handler a queue's worker runs, reading the typed handlers registered so far. */
export function dispatcher(queue: QueueName, handlers: Handlers): JobHandler<unknown> {
  return async (job) => {
    const { kind, data } = routeLegacy(queue, job.data);
    const handler = handlers[kind] as JobHandler<unknown> | undefined;
    // A job of a kind this process does not work (yet): an error, so the queue's retries give it time.
    if (!handler) throw new UnknownQueueError(kind);
    const parsed = JOB_PAYLOADS[kind].safeParse(data);
    if (!parsed.success) {
      throw new PermanentJobError(
        `${kind} job ${job.id} has a payload that does not fit its queue (${parsed.error.message}); ` +
          "it was not queued by this version: look at what sent it",
        { cause: parsed.error },
      );
    }
    return handler({ ...job, data: parsed.data });
  };
}
