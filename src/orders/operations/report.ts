/**
 * Alerts an admin can act on: each opens an attention item (one per kind and subject while it is open) and is
 * posted once with its buttons; the item records where, so the alert can later say who did what and when.
 */
import { randomUUID } from "node:crypto";
import type { Store } from "../../store/db.ts";
import {
  claimUnsentAlerts,
  openAttention,
  openSummarizedAttention,
  setAttentionAlertText,
  summarizedOrphans,
} from "../../store/repositories/attention.ts";
import type { AdminAlert, AlertPart, OrderNotifier } from "../ports.ts";
import { postAlert } from "./post-alert.ts";
import { type AttentionItem, subjectKey } from "./types.ts";

/** Correlation ids a summary names; the rest are counted. */
const SUMMARY_NAMES = 5;

/** The Slack side (src/slack/attention-alerts.ts): posts an item's alert, and shows it again once resolved. */
export interface AttentionAlerts {
  /**
   * Posts the open item's alert with its actions; returns where it went. `earlierAttempt`: when an attempt whose
   * outcome is unknown was made (./post-alert.ts), so the alert it may have posted is looked for first.
   */
  post(item: AttentionItem, earlierAttempt?: Date | null): Promise<{ channelId: string; ts: string }>;
  /** Rewrites the alert to show the item's outcome (who, what, when) in place of the actions. */
  showOutcome(item: AttentionItem): Promise<void>;
  /**
   * Says in the order's thread that replies posted there were detached from it (the item's Detach); returns the
   * note's ts.
   */
  noteDetached(thread: { channelId: string; threadTs: string }, item: AttentionItem): Promise<string>;
}

export interface AttentionReporterDeps {
  store: Store;
  alerts: AttentionAlerts;
  newId?: () => string;
}

/**
 * Opens the alert's item and posts it unless it was posted before (the same trouble reported again by the next
 * sweep, a retried job, another replica). Throws when the post fails: the caller's next report tries again.
 */
export async function raiseAttention(
  deps: AttentionReporterDeps,
  alert: AdminAlert & { subject: NonNullable<AdminAlert["subject"]> },
): Promise<AttentionItem> {
  if (alert.subject.kind === "orphan_summary") {
    return raiseOrphanSummary(deps, { ...alert, correlationIds: alert.subject.correlationIds });
  }
  const { item } = await openAttention(deps.store, {
    id: (deps.newId ?? randomUUID)(),
    ...subjectKey(alert.subject),
    alert: { title: alert.title, text: alert.text },
  });
  if (item.alertTs !== null) return item;
  return postAlert(deps.store, deps.alerts, item);
}

/**
 * An orphan storm, one alert: the open summary (or a new one) takes the correlation ids as orphan items of its own
 * (no alert each), and its alert says how many there are and names the first few, with "Ignore all". A summary
 * posted before is rewritten in place with the new count, so a storm that lasts several sweeps stays one message.
 * `alert.text` is the why and what next, after the count.
 */
async function raiseOrphanSummary(
  deps: AttentionReporterDeps,
  alert: Pick<AdminAlert, "title" | "text"> & { correlationIds: readonly string[] },
): Promise<AttentionItem> {
  const newId = deps.newId ?? randomUUID;
  const summaryOf = async (summaryId: string) => {
    const { count, firstIds } = await summarizedOrphans(deps.store, summaryId, SUMMARY_NAMES);
    const more = count > firstIds.length ? ` and ${count - firstIds.length} more` : "";
    const head = `${count} correlation id${count === 1 ? "" : "s"} with supplier updates for no known order (${firstIds.join(", ")}${more}). `;
    const tail: readonly AlertPart[] = typeof alert.text === "string" ? [alert.text] : alert.text;
    return { title: alert.title, text: [head, ...tail] };
  };
  const { item, created } = await deps.store.transaction(async (tx) => {
    const opened = await openAttention(tx, {
      id: newId(),
      ...subjectKey({ kind: "orphan_summary", correlationIds: alert.correlationIds }),
      alert: { title: alert.title, text: alert.text },
    });
    for (const correlationId of alert.correlationIds) {
      await openSummarizedAttention(tx, {
        id: newId(),
        subject: correlationId,
        alert: {
          title: "Supplier updates for an unknown order",
          text: `Supplier updates for correlation id ${correlationId} match no order here (part of a storm of orphan events).`,
        },
        summarizedIn: opened.item.id,
      });
    }
    return opened;
  });
  const shown = (await setAttentionAlertText(deps.store, item.id, await summaryOf(item.id))) ?? item;
  if (shown.alertTs === null) return postAlert(deps.store, deps.alerts, shown);
  // Posted by an earlier sweep: the same message now says how many there are.
  if (!created) await deps.alerts.showOutcome(shown);
  return shown;
}

/**
 * Posts the alerts that did not go out when their trouble was reported (Slack down, the admin channel archived):
 * items older than `graceMs` without an alert. Each is claimed first, so replicas do not post it twice; a post
 * that fails again is tried at the next run. Returns how many went out. The grace is a wait, measured by the
 * database's clock that dated the items (the app's may be set apart from it).
 */
export async function postUnsentAlerts(
  deps: AttentionReporterDeps,
  options: { graceMs?: number; onError?: (error: unknown, item: AttentionItem) => void } = {},
): Promise<number> {
  const graceMs = options.graceMs ?? 60_000;
  const items = await claimUnsentAlerts(deps.store, {
    graceMs,
    reclaimAfterMs: 5 * graceMs,
    limit: 20,
  });
  let posted = 0;
  for (const item of items) {
    try {
      await postAlert(deps.store, deps.alerts, item);
      posted++;
    } catch (error) {
      options.onError?.(error, item);
    }
  }
  return posted;
}

/** The notifier, with alerts that have a subject opening attention items (the rest go out as before). */
export function withAttention(notifier: OrderNotifier, deps: AttentionReporterDeps): OrderNotifier {
  return {
    ...notifier,
    async alertAdmins(alert, options) {
      if (!alert.subject) return notifier.alertAdmins(alert, options);
      await raiseAttention(deps, { ...alert, subject: alert.subject });
    },
  };
}
