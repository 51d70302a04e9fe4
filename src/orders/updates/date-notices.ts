/**
 * Posts an order's date notices (apply-dates.ts recorded them with the event that caused them) to its thread,
 * each once: "At risk: expected Thu 10 Dec, needed by Mon 7 Dec" (also sent to the channel, and by DM to the
 * requester), "Back on track", "Delivered 3 days after the needed-by date". Like the event replies, a post is
 * recorded as attempted first and carries its notice's id in message metadata, so a post interrupted by a crash is
 * found in the thread instead of posted twice. The DM is claimed before it is sent: at most one.
 */
import type { Logger } from "pino";
import type { Store } from "../../store/db.ts";
import {
  claimNoticeDm,
  type DateNotice,
  listUnpostedNotices,
  markNoticeAttempted,
  markNoticePosted,
} from "../../store/repositories/order-risk.ts";
import { calendarDateIn, formatDay } from "../dates/business-days.ts";
import type { Order } from "../model/order.ts";
import type { SlackChat } from "./chat-port.ts";

/** `metadata.event_type` of date notices; `event_payload.event_id` is `<order id>:<seq>`. */
export const DATE_NOTICE_EVENT_TYPE = "order_desk_date_notice";

export interface DateNoticeDeps {
  store: Store;
  slack: SlackChat;
  now: () => Date;
  timeZone: string;
  /** Counts what was told (metrics.ts). */
  onNotice?: (order: Order, notice: DateNotice) => void;
}

export function dateNoticeText(notice: DateNotice, today: string): string {
  const day = (d: string | null) => (d ? formatDay(d, today) : "unknown");
  switch (notice.kind) {
    case "at_risk":
      return `⚠️ At risk: expected ${day(notice.expectedDelivery)}, needed by ${day(notice.neededBy)}`;
    case "back_on_track":
      return `✅ Back on track: expected ${day(notice.expectedDelivery)}, needed by ${day(notice.neededBy)}`;
    case "delivered_late": {
      const n = notice.lateDays ?? 0;
      return `Delivered late: ${n} day${n === 1 ? "" : "s"} after the needed-by date (${day(notice.neededBy)})`;
    }
  }
}

const noticeId = (n: DateNotice) => `${n.orderId}:${n.seq}`;

/** Posts the order's unposted notices in order; throws what Slack answered (the job retries). */
export async function postDateNotices(
  deps: DateNoticeDeps,
  order: Order,
  thread: { channel: string; threadTs: string },
  logger: Logger,
): Promise<number> {
  const today = calendarDateIn(deps.now(), deps.timeZone);
  let posted = 0;
  for (const notice of await listUnpostedNotices(deps.store, order.id)) {
    const text = dateNoticeText(notice, today);
    if (notice.postedAt === null) {
      const id = noticeId(notice);
      const earlier =
        notice.postAttemptedAt === null
          ? null
          : await deps.slack.findReply({
              channel: thread.channel,
              threadTs: thread.threadTs,
              eventType: DATE_NOTICE_EVENT_TYPE,
              eventId: id,
              attemptedAt: notice.postAttemptedAt,
            });
      let ts = earlier;
      if (ts === null) {
        await markNoticeAttempted(deps.store, order.id, notice.seq);
        ({ ts } = await deps.slack.postMessage({
          channel: thread.channel,
          thread_ts: thread.threadTs,
          text,
          ...(notice.kind === "at_risk" && { reply_broadcast: true }),
          metadata: {
            event_type: DATE_NOTICE_EVENT_TYPE,
            event_payload: { event_id: id, order_id: order.id },
          },
        }));
        posted++;
        deps.onNotice?.(order, notice);
      }
      await markNoticePosted(deps.store, order.id, notice.seq, ts, deps.now());
      logger.info({ kind: notice.kind, seq: notice.seq }, "date notice posted");
    }
    if (notice.kind === "at_risk" && notice.dmSentAt === null && /^[UW][A-Z0-9]+$/.test(order.requestedBy)) {
      if (await claimNoticeDm(deps.store, order.id, notice.seq, deps.now())) {
        // The thread has it: a DM Slack refuses (the person left) must not hold up the order's updates.
        await deps.slack
          .postMessage({
            channel: order.requestedBy,
            text: `Your order ${order.externalDocumentNumber} may arrive late. ${text}.`,
          })
          .catch((error: unknown) =>
            logger.warn({ err: error }, "could not DM the requester about the risk"),
          );
      }
    }
  }
  return posted;
}
