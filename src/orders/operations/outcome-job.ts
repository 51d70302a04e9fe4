/**
 * An admin alert shows what became of its item: once an admin acted (who, what, when, no buttons left), again
 * after a Detach undid an attach (and a note in the order's thread, when updates had been posted there), and an
 * item opened by an action (the orphans a Detach left) gets its alert posted. The work is a job enqueued in the
 * transaction that changed the item, so a process killed right after the admin's click was acked still does it
 * once it is back; the job's retries wait out a Slack that refuses or does not answer.
 */
import { type Logger, pino } from "pino";
import { jobId } from "../../jobs/ids.ts";
import type { Jobs } from "../../jobs/jobs.ts";
import { QUEUES } from "../../jobs/queues.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import type { Queryable, Store } from "../../store/db.ts";
import {
  addDetachDetail,
  claimUnsentAlert,
  getAttention,
  releaseAlertClaim,
} from "../../store/repositories/attention.ts";
import { getOrder } from "../../store/repositories/orders.ts";
import { postAlert } from "./post-alert.ts";
import type { AttentionAlerts } from "./report.ts";
import type { AttentionItem } from "./types.ts";

/** How long a post of an open item's alert is left to whoever claimed it (then the unsent-alerts pass may). */
const CLAIM_MS = 5 * 60_000;

/** Enqueues the alert's rewrite (or first post) inside `tx`: one job per change of the item. */
export async function enqueueAlertRewrite(
  jobs: Pick<Jobs, "send">,
  tx: Queryable,
  item: AttentionItem,
): Promise<void> {
  const change = item.detachedAt
    ? `detached:${item.detachedAt.toISOString()}`
    : item.resolvedAt
      ? item.resolvedAt.toISOString()
      : `open:${new Date().toISOString()}`;
  await jobs.send(
    QUEUES.attentionOutcome,
    { itemId: item.id },
    { id: jobId(QUEUES.attentionOutcome, item.id, change), tx },
  );
}

export interface AlertRewriteDeps {
  store: Store;
  alerts: Pick<AttentionAlerts, "post" | "showOutcome" | "noteDetached">;
  logger?: Logger;
}

/** Posts an open item's alert that has not gone out, unless another post of it is under way. */
async function postOnce(deps: AlertRewriteDeps, item: AttentionItem): Promise<void> {
  const claimed = await claimUnsentAlert(deps.store, item.id, CLAIM_MS);
  if (!claimed) return;
  try {
    await postAlert(deps.store, deps.alerts, claimed);
  } catch (error) {
    await releaseAlertClaim(deps.store, item.id);
    throw error;
  }
}

/** The note in the order's thread that replies posted there were detached (once: its ts is recorded). */
async function noteDetachedOnce(deps: AlertRewriteDeps, item: AttentionItem): Promise<void> {
  const detail = item.detachDetail ?? {};
  if (typeof detail.noteTs === "string" || !(Number(detail.posted) > 0)) return;
  const order = typeof detail.orderId === "string" ? await getOrder(deps.store, detail.orderId) : null;
  const thread = order?.slackThreadTs ?? order?.slackMessageTs;
  if (!order?.slackChannelId || !thread) return;
  const ts = await deps.alerts.noteDetached({ channelId: order.slackChannelId, threadTs: thread }, item);
  await addDetachDetail(deps.store, item.id, { noteTs: ts });
}

export function alertRewriteHandler(deps: AlertRewriteDeps): JobHandler<{ itemId: string }> {
  const logger = deps.logger ?? pino({ level: "silent" });
  return async (job) => {
    const item = await getAttention(deps.store, job.data.itemId);
    if (!item) return;
    if (!item.alertTs) {
      // An item opened by an action: its alert goes out now. One resolved before its alert went out has none.
      if (item.resolvedAt === null) await postOnce(deps, item);
      return;
    }
    if (item.detachedAt) await noteDetachedOnce(deps, item);
    await deps.alerts.showOutcome(item);
    logger.info({ itemId: item.id, resolution: item.resolution }, "admin alert rewritten");
  };
}

export function workAlertRewrites(jobs: Pick<Jobs, "work">, deps: AlertRewriteDeps): void {
  jobs.work(QUEUES.attentionOutcome, alertRewriteHandler(deps), { concurrency: 2 });
}
