/**
 * The `post-update` job: an order's supplier events become threaded replies on its Slack message, in
 * `occurredAt` order, each once; then the message's status line is brought up to date.
 *
 * Per run, under the order's lock (order-lock.ts):
 *  1. apply every unposted event to the order — status (only forward: `applySupplierStatus`) and tracking
 *     (only newer: tracking.ts) — so App Home is right even when Slack is not reachable;
 *  2. post each unposted event the thread shows (verbosity.ts: milestones, or every event) as a reply, at the
 *     channel's pace, and mark it posted with the reply's ts right after Slack answers; mark the others handled
 *     without a reply;
 *  3. re-render the parent message (`present.parent`, the order message builder) and `chat.update` it if it
 *     changed (parent-message.ts).
 *
 * A Slack call that fails ends the run as slack-failure.ts decides: later for a rate limit, for good (and the
 * admins told once) when the channel is gone.
 *
 * Exactly once: an event is posted only while `posted_at` is null, by one poster at a time. A crash (or a
 * lost answer, or a lost database) between Slack taking the reply and the `markPosted` UPDATE would post it
 * again on the retry, so each post is recorded as attempted first (`post_attempted_at`) and carries its event
 * id in message metadata: an event attempted before is looked up in the thread (`conversations.replies`)
 * and, when found, only marked posted. The read (of the replies since the attempt) is usually one call, and only
 * after a failed or interrupted post.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type Logger, pino } from "pino";
import { PermanentJobError, RetryLaterError } from "../../jobs/errors.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { JobContext, JobHandler } from "../../jobs/worker.ts";
import {
  attachOrphansOfOrder,
  listEventsForOrder,
  listUnpostedForOrder,
  markPostAttempted,
  markPosted,
  type StoredEvent,
} from "../../store/repositories/events.ts";
import { getOrder } from "../../store/repositories/orders.ts";
import type { Order } from "../model/order.ts";
import { applyEvent } from "./apply-event.ts";
import { postDateNotices } from "./date-notices.ts";
import type { PostUpdateJobData } from "./enqueue.ts";
import { ChatCallFailedError } from "./errors.ts";
import { OrderBusyError, OrderLocks } from "./order-lock.ts";
import { ChannelPacer, waitForSlot } from "./pacer.ts";
import { parentUpdater } from "./parent-message.ts";
import { postReply, type ReplyOutcome } from "./post-reply.ts";
import type { PostOutcome, PostUpdateDeps, PostUpdateWorker } from "./post-update-deps.ts";
import { slackFailureHandler } from "./slack-failure.ts";
import { decideReply } from "./verbosity.ts";

/** `metadata.event_type` of our threaded replies; `event_payload.event_id` names the supplier event. */
export const REPLY_EVENT_TYPE = "order_desk_supplier_event";
const MARK_ATTEMPTS = 5;

function isJobData(value: unknown): value is PostUpdateJobData {
  const v = value as Partial<PostUpdateJobData> | null;
  return typeof v?.orderId === "string" && v.orderId.length > 0;
}

export function createPostUpdateWorker(deps: PostUpdateDeps): PostUpdateWorker {
  const { store, slack } = deps;
  const baseLogger = (deps.logger ?? pino({ level: "silent" })).child({ component: "post-update" });
  const now = deps.now ?? (() => new Date());
  const timeZone = deps.timeZone ?? "UTC";
  const applyOptions = { timeZone, onDelivered: deps.onDelivered };
  const pacer = deps.pacer ?? new ChannelPacer();
  const maxPaceWaitMs = deps.maxPaceWaitMs ?? 5_000;
  const settleMs = deps.settleMs ?? 0;
  const locks = new OrderLocks(store);
  const onSlackError = slackFailureHandler(deps, pacer, now);
  const updateParent = parentUpdater(deps);

  let warnedNoHistoryScope = false;

  async function orderChanged(order: Order, logger: Logger): Promise<void> {
    try {
      await deps.onOrderChanged?.(order);
    } catch (error) {
      logger.warn({ err: error }, "onOrderChanged failed; the updates are posted anyway");
    }
  }

  /**
   * The reply an interrupted earlier attempt left in the thread, if any. Without the history scopes (an app
   * installed before they were added) it cannot look, says so once, and posts: a possible duplicate beats a
   * lost update.
   */
  async function earlierReply(channel: string, threadTs: string, event: StoredEvent, logger: Logger) {
    if (event.postAttemptedAt === null) return null;
    try {
      return await slack.findReply({
        channel,
        threadTs,
        eventType: REPLY_EVENT_TYPE,
        eventId: event.id,
        attemptedAt: event.postAttemptedAt,
      });
    } catch (error) {
      if (!(error instanceof ChatCallFailedError && error.reason === "missing_scope")) throw error;
      if (!warnedNoHistoryScope) {
        warnedNoHistoryScope = true;
        logger.warn(
          { channel },
          "cannot read threads (missing_scope): reinstall the app with manifest.yml's history scopes, or a reply interrupted by a crash may appear twice",
        );
      }
      return null;
    }
  }

  /** Marks posted, retrying briefly: giving up here is what turns a database blip into a duplicate reply. */
  async function markPostedHard(
    eventId: string,
    ts: string | null,
    logger: Logger,
    milestone: string | null = null,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await markPosted(store, eventId, ts, milestone);
        return;
      } catch (error) {
        if (attempt >= MARK_ATTEMPTS) throw error;
        logger.warn({ err: error, eventId, attempt }, "could not mark the reply posted; retrying");
        await sleep(100 * 2 ** attempt);
      }
    }
  }

  /**
   * A placed order with no message: once the placement job has had ample time to post it, post it here. The
   * wait keeps this from racing the placement job's own post (which would show the order twice).
   */
  async function recoverMissingMessage(
    order: Order,
    signal: AbortSignal | undefined,
    logger: Logger,
  ): Promise<Order> {
    if (order.slackMessageTs || !deps.showMissingMessage || order.source === "cli") return order;
    if (order.status === "queued" || order.status === "placing") return order;
    // updated_at is the database's time: measured on the wall clock, not the app's (which tests may move).
    const quietFor = Date.now() - order.updatedAt.getTime();
    if (quietFor < (deps.missingMessageAfterMs ?? 10_000)) return order;
    const shown = await deps.showMissingMessage(order, signal);
    if (shown.slackMessageTs) {
      logger.warn(
        { channel: shown.slackChannelId },
        "posted the order's message, which its placement could not post",
      );
    }
    return shown;
  }

  /**
   * Links the order's orphans (events stored before its correlation id was) before listing what to post. The
   * placement job attaches them right after recording the placement, but a crash between the two, or an
   * event's INSERT overlapping that commit, leaves one behind; without this, the order's later events would go
   * out first and the orphan would follow only at the next sweep, out of order.
   */
  async function adoptOrphans(orderId: string, logger: Logger): Promise<void> {
    const adopted = await attachOrphansOfOrder(store, orderId);
    if (adopted > 0) logger.info({ adopted }, "linked events that were waiting for this order's placement");
  }

  async function post(
    orderId: string,
    signal: AbortSignal | undefined,
    logger: Logger,
  ): Promise<PostOutcome> {
    await adoptOrphans(orderId, logger);
    const events = await listEventsForOrder(store, orderId);
    const pending = events.filter((e) => e.postedAt === null);
    let applied = 0;
    for (const event of pending) if (await applyEvent(store, orderId, event, applyOptions)) applied++;

    let order = await getOrder(store, orderId);
    if (!order)
      throw new PermanentJobError(`order ${orderId} does not exist; nothing to post its updates on`);
    if (applied > 0) await orderChanged(order, logger);
    // Keyed by the order's newest event, pending or not: another job of the order may have applied and posted it
    // already (one poster per order takes everything unposted), and its check must still run once.
    const newest = events.at(-1);
    if (newest) await deps.afterEvents?.(orderId, newest.id);
    order = await recoverMissingMessage(order, signal, logger);
    const channel = order.slackChannelId;
    const threadTs = order.slackThreadTs ?? order.slackMessageTs;
    if (!channel || !threadTs) {
      if (order.source === "cli") {
        // Placed from the command line: no Slack message to thread on. Applied above; nothing to post.
        for (const event of pending) await markPostedHard(event.id, null, logger);
        return { applied, posted: 0, parentUpdated: false };
      }
      throw new RetryLaterError(
        deps.noMessageRetryMs ?? 5_000,
        `order ${orderId} has no Slack message recorded yet; its updates wait for it`,
      );
    }

    let newestPosted: number | null = null;
    for (const e of events) {
      if (e.replyTs !== null) newestPosted = Math.max(newestPosted ?? 0, e.occurredAt.getTime());
    }
    let posted = 0;
    let settlesInMs: number | null = null;
    const seen = new Set(pending.map((e) => e.id));
    for (let first = true; ; first = false) {
      signal?.throwIfAborted();
      // Listed again before every post: an earlier event that arrived (or an orphan linked) meanwhile goes first.
      if (!first) await adoptOrphans(orderId, logger);
      const orderEvents = await listEventsForOrder(store, orderId);
      const queue = orderEvents.filter((e) => e.postedAt === null);
      const event = queue[0];
      if (!event) break;
      if (!seen.has(event.id)) {
        seen.add(event.id);
        if (await applyEvent(store, orderId, event, applyOptions)) {
          applied++;
          const changed = await getOrder(store, orderId);
          if (changed) await orderChanged(changed, logger);
        }
      }
      // Not settled yet: it and everything after it wait, or an earlier event arriving late would land below it.
      const settledAt = event.receivedAt.getTime() + settleMs;
      if (settledAt > Date.now()) {
        settlesInMs = settledAt - Date.now();
        break;
      }
      const decision = decideReply(event, orderEvents, {
        updates: deps.updates?.(order) ?? "all",
        broadcast: deps.broadcast,
      });
      if (!decision.post) {
        // Kept out of the thread: the status line and App Home already show it.
        await markPostedHard(event.id, null, logger);
        continue;
      }
      // A pace slot only for a reply that goes out now: reserving one for a turn that finds nothing to post
      // would cost the channel's next reply a second.
      await waitForSlot(pacer, channel, maxPaceWaitMs, signal);
      if ((await listUnpostedForOrder(store, orderId))[0]?.id !== event.id) continue; // an earlier one arrived

      const late = newestPosted !== null && event.occurredAt.getTime() < newestPosted;
      const renderOptions = { now: now(), timeZone, late };
      const rendered = deps.present.reply(event, order, renderOptions);
      const { broadcast, milestone } = decision;
      let outcome: ReplyOutcome;
      try {
        const earlier = await earlierReply(channel, threadTs, event, logger);
        if (earlier !== null) {
          logger.info(
            { eventId: event.id, ts: earlier },
            "an interrupted attempt posted this reply; not posting it again",
          );
          await markPostedHard(event.id, earlier, logger, milestone);
          if (!late) newestPosted = event.occurredAt.getTime();
          continue;
        }
        await markPostAttempted(store, event.id);
        outcome = await postReply(
          { store, slack, now },
          {
            eventId: event.id,
            message: {
              channel,
              thread_ts: threadTs,
              text: rendered.text,
              blocks: rendered.blocks,
              ...(broadcast && { reply_broadcast: true }),
              metadata: {
                event_type: REPLY_EVENT_TYPE,
                event_payload: { event_id: event.id, order_id: orderId },
              },
            },
            short: (slackError) => deps.present.shortReply(event, order, renderOptions, slackError),
          },
          logger,
        );
      } catch (error) {
        return onSlackError(error, order, queue, logger);
      }
      if (outcome.kind === "skipped") continue;
      deps.metrics?.slackPosts.inc({ method: "chat.postMessage" });
      await markPostedHard(event.id, outcome.ts, logger, milestone);
      posted++;
      if (!late) newestPosted = event.occurredAt.getTime();
    }

    try {
      const noticeDeps = {
        store,
        slack,
        now,
        timeZone,
        ...(deps.onDateNotice && { onNotice: deps.onDateNotice }),
      };
      posted += await postDateNotices(noticeDeps, order, { channel, threadTs }, logger);
    } catch (error) {
      return onSlackError(error, order, [], logger);
    }
    const latest = (await getOrder(store, orderId)) ?? order;
    const parentUpdated = await updateParent(latest, logger);
    if (settlesInMs !== null) {
      throw new RetryLaterError(
        Math.max(20, settlesInMs),
        `waiting for the settle delay of order ${orderId}'s latest events`,
      );
    }
    return { applied, posted, parentUpdated };
  }

  async function postOrderUpdates(
    orderId: string,
    options: { signal?: AbortSignal; logger?: Logger } = {},
  ): Promise<PostOutcome> {
    const logger = (options.logger ?? baseLogger).child({ orderId });
    try {
      const outcome = await locks.run(orderId, () => post(orderId, options.signal, logger));
      if (outcome.posted > 0 || outcome.applied > 0) logger.info(outcome, "order updates posted");
      return outcome;
    } catch (error) {
      if (error instanceof OrderBusyError) {
        throw new RetryLaterError(deps.busyRetryMs ?? 1_000, error.message, { cause: error });
      }
      throw error;
    }
  }

  const handler: JobHandler<PostUpdateJobData> = async (job: JobContext<PostUpdateJobData>) => {
    if (!isJobData(job.data)) {
      throw new PermanentJobError(`post-update job ${job.id} has no orderId: ${JSON.stringify(job.data)}`);
    }
    await postOrderUpdates(job.data.orderId, { signal: job.signal, logger: job.logger });
  };

  return { handler, postOrderUpdates };
}

/** Registers the worker on the `post-update` queue. */
export function workPostUpdates(
  jobs: Pick<Jobs, "work">,
  deps: PostUpdateDeps,
  options: { concurrency?: number } = {},
): PostUpdateWorker {
  const worker = createPostUpdateWorker(deps);
  jobs.work(QUEUES.postUpdate, worker.handler, { concurrency: options.concurrency ?? 4 });
  return worker;
}
