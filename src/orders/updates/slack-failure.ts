/**
 * What a failed Slack call does to a post-update run. Each kind ends the run differently, because each asks for
 * something else: a rate limit pauses the channel for every job of this process and comes back when Slack says;
 * a destination that is gone (channel archived, app removed) will not come back by retrying, so the admins are
 * told once and the job stops; any other failure is recorded on the event about to go out and retried by the queue.
 */
import type { Logger } from "pino";
import { PermanentJobError, RetryLaterError } from "../../jobs/errors.ts";
import { markPostError, type StoredEvent } from "../../store/repositories/events.ts";
import type { Order } from "../model/order.ts";
import { ChatCallFailedError, ChatDestinationGoneError, ChatRateLimitedError } from "./errors.ts";
import type { ChannelPacer } from "./pacer.ts";
import type { PostUpdateDeps } from "./post-update-deps.ts";
import { unpostedUpdatesAlert } from "./unposted-alert.ts";

export type SlackFailureHandler = (
  error: unknown,
  order: Order,
  pending: StoredEvent[],
  logger: Logger,
) => Promise<never>;

export function slackFailureHandler(
  deps: Pick<PostUpdateDeps, "store" | "metrics" | "alertAdmins">,
  pacer: ChannelPacer,
  now: () => Date,
): SlackFailureHandler {
  const { store } = deps;
  return async function onSlackError(
    error: unknown,
    order: Order,
    pending: StoredEvent[],
    logger: Logger,
  ): Promise<never> {
    const channel = order.slackChannelId ?? "?";
    if (error instanceof ChatRateLimitedError) {
      pacer.pauseUntil(channel, Date.now() + error.retryAfterMs);
      deps.metrics?.slackRateLimited.inc({ method: error.method });
      logger.info({ channel, retryAfterMs: error.retryAfterMs }, "Slack rate limit; re-scheduling");
      throw new RetryLaterError(error.retryAfterMs, error.message, { cause: error });
    }
    const first = pending[0];
    if (error instanceof ChatDestinationGoneError) {
      const record = { code: error.code, slackError: error.reason, message: error.message, at: now() };
      // `alerted: false` marks an alert that has not gone out (yet): the order's next run tries it again.
      const reportedBefore =
        first?.postError?.slackError === error.reason && first.postError.alerted !== false;
      const needsAlert = !reportedBefore && deps.alertAdmins !== undefined;
      for (const event of pending) {
        await markPostError(store, event.id, needsAlert ? { ...record, alerted: false } : record);
      }
      logger.error({ channel, slackError: error.reason, pending: pending.length }, error.message);
      if (needsAlert && deps.alertAdmins) {
        await deps
          .alertAdmins(unpostedUpdatesAlert(order, pending.length, channel, error))
          .then(
            // Only now is it reported: the marks say so, and the order's next run does not alert again.
            async () => {
              for (const event of pending) await markPostError(store, event.id, { ...record, alerted: true });
            },
            (alertError: unknown) =>
              logger.error(
                { err: alertError },
                "could not alert the admins; the order's next update tries again",
              ),
          )
          .catch((markError: unknown) =>
            logger.error({ err: markError }, "could not record that the admins were alerted"),
          );
      }
      throw new PermanentJobError(error.message, { cause: error });
    }
    if (error instanceof ChatCallFailedError && first) {
      await markPostError(store, first.id, {
        code: error.code,
        slackError: error.reason,
        message: error.message,
        at: now(),
      }).catch(() => {});
    }
    throw error;
  };
}
