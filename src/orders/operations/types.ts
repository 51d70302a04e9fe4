/**
 * What an operator acts on from Slack: attention items (a failed placement, unposted updates, orphan events),
 * the actions each kind offers, and what an action came to. No Slack or database types here.
 */
import { z } from "zod";
import type { AlertPart } from "../ports.ts";

export type AttentionKind =
  | "failed_order"
  | "unposted_updates"
  | "orphan_events"
  | "orphan_summary"
  | "unreadable_events"
  | "stalled_order"
  /** An order expected after its needed-by date (orders/dates/review.ts); resolved when back on track. */
  | "at_risk_order";

/** What an alert is about: an order (by id), or the supplier's correlation id of orphan events. */
export type AttentionSubject =
  | { kind: "failed_order"; orderId: string }
  | { kind: "unposted_updates"; orderId: string }
  | { kind: "orphan_events"; correlationId: string }
  /**
   * Several correlation ids' orphans found by one sweep (a storm): one alert for all of them. One summary is open at
   * a time; a later sweep's orphans join it (its alert is rewritten with the new count).
   */
  | { kind: "orphan_summary"; correlationIds: readonly string[] }
  /** Deliveries the mapping cannot read, by the shape of their body (webhooks/unreadable.ts). */
  | { kind: "unreadable_events"; shapeKey: string }
  /** An order the watchdog found stalled (src/orders/watchdog/): one item per order and condition. */
  | { kind: "stalled_order"; orderId: string; condition: string }
  | { kind: "at_risk_order"; orderId: string };

/** The subject of the one open orphan summary. */
export const ORPHAN_SUMMARY_SUBJECT = "orphan-events";

export type Resolution =
  | "retried"
  | "handled"
  | "reposted"
  | "attached"
  | "ignored"
  | "obsolete"
  | "reprocessed";

export type OperatorAction =
  | "retry_order"
  | "mark_handled"
  | "retry_posting"
  | "attach_orphans"
  | "ignore_orphans"
  | "reprocess_events";

/** Which actions each kind offers (a click naming another is refused: its value was forged or stale). */
export const ACTIONS_OF: Readonly<Record<AttentionKind, readonly OperatorAction[]>> = {
  failed_order: ["retry_order", "mark_handled"],
  unposted_updates: ["retry_posting"],
  orphan_events: ["attach_orphans", "ignore_orphans"],
  // "Ignore all": the summary and every orphan item it stands for.
  orphan_summary: ["ignore_orphans"],
  unreadable_events: ["reprocess_events"],
  // Cleared by itself when the supplier's event comes; an admin who dealt with it another way marks it handled.
  stalled_order: ["mark_handled"],
  at_risk_order: ["mark_handled"],
};

export const RESOLUTION_OF: Readonly<Record<OperatorAction, Resolution>> = {
  retry_order: "retried",
  mark_handled: "handled",
  retry_posting: "reposted",
  attach_orphans: "attached",
  ignore_orphans: "ignored",
  reprocess_events: "reprocessed",
};

/** The alert as stored on the item: shown again, with its outcome, when someone acts on it. */
export interface StoredAlert {
  title: string;
  text: string | readonly AlertPart[];
}

const alertPartSchema = z.union([
  z.string(),
  z.object({ channel: z.string() }),
  z.object({ user: z.string() }),
]);

/** The stored alert, parsed once where the row is read: a value that cannot be read shows as a plain title. */
export const storedAlertSchema = z
  .object({ title: z.string(), text: z.union([z.string(), z.array(alertPartSchema)]) })
  .catch({ title: "Admin alert", text: "(its text could not be read)" });

export interface AttentionItem {
  id: string;
  kind: AttentionKind;
  /** The order id, or the correlation id for orphan events. */
  subject: string;
  alert: StoredAlert;
  openedAt: Date;
  alertChannelId: string | null;
  alertTs: string | null;
  resolution: Resolution | null;
  resolvedBy: string | null;
  resolvedAt: Date | null;
  /** E.g. `{ orderId, externalDocumentNumber, events }` for attached orphans; `{ reason }` for obsolete. */
  resolutionDetail: Record<string, unknown> | null;
  /** The orphan summary this item is part of: it has no alert of its own (null for every other item). */
  summarizedIn: string | null;
  /** An attach undone by an admin's Detach (./detach.ts): who, when, and `{ events, posted, reopenedItemId }`. */
  detachedBy: string | null;
  detachedAt: Date | null;
  detachDetail: Record<string, unknown> | null;
}

export function subjectKey(subject: AttentionSubject): { kind: AttentionKind; subject: string } {
  switch (subject.kind) {
    case "orphan_events":
      return { kind: subject.kind, subject: subject.correlationId };
    case "orphan_summary":
      return { kind: subject.kind, subject: ORPHAN_SUMMARY_SUBJECT };
    case "unreadable_events":
      return { kind: subject.kind, subject: subject.shapeKey };
    case "stalled_order":
      return { kind: subject.kind, subject: `${subject.orderId}:${subject.condition}` };
    default:
      return { kind: subject.kind, subject: subject.orderId };
  }
}

/**
 * What an attach did with the orphans' correlation id (recorded in the item's resolution detail): made it the
 * order's own (it had none), recorded it as an alias (`order_aliases`), or found it the order's already.
 */
export type AttachedCorrelation = "own" | "alias" | "already";

/** What an action came to; `item` is the item as it is now (resolved unless refused or invalid). */
export type ActionOutcome =
  | { kind: "done"; item: AttentionItem }
  /** Someone acted first (a double click, two admins): nothing was done again. */
  | { kind: "already"; item: AttentionItem }
  /** The trouble went away meanwhile (order resubmitted, events posted): closed without doing anything. */
  | { kind: "obsolete"; item: AttentionItem; reason: string }
  /** Nothing to act on: an unknown id (forged, or another deployment's) or an action the item does not offer. */
  | { kind: "refused"; reason: string }
  /** The admin's input does not fit (attach: no order with that number); shown on the field. */
  | { kind: "invalid"; reason: string };

/**
 * A Needs-attention listing: open items still in trouble (failed orders first, then newest first; the orphans a
 * summary stands for are not listed one by one), and how many of each kind (every orphan group counted; summaries
 * are not a kind of trouble of their own, their count is 0).
 */
export interface AttentionList {
  items: AttentionItem[];
  counts: Record<AttentionKind, number>;
}

/** Whether the item's alert offers Detach: an attach that is not undone and that linked a correlation id. */
export function offersDetach(item: AttentionItem): boolean {
  return (
    item.kind === "orphan_events" &&
    item.resolution === "attached" &&
    item.detachedAt === null &&
    item.resolutionDetail?.correlation !== "already"
  );
}
