/**
 * What an operator acts on from Slack: attention items (a failed placement, unposted updates, orphan events),
 * the actions each kind offers, and what an action came to. No Slack or database types here.
 */
import { z } from "zod";
import type { AlertPart } from "../ports.ts";

export type AttentionKind = "failed_order" | "unposted_updates" | "orphan_events" | "unreadable_events";

/** What an alert is about: an order (by id), or the supplier's correlation id of orphan events. */
export type AttentionSubject =
  | { kind: "failed_order"; orderId: string }
  | { kind: "unposted_updates"; orderId: string }
  | { kind: "orphan_events"; correlationId: string }
  /** Deliveries the mapping cannot read, by the shape of their body (webhooks/unreadable.ts). */
  | { kind: "unreadable_events"; shapeKey: string };

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
  unreadable_events: ["reprocess_events"],
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
}

export function subjectKey(subject: AttentionSubject): { kind: AttentionKind; subject: string } {
  return {
    kind: subject.kind,
    subject:
      subject.kind === "orphan_events"
        ? subject.correlationId
        : subject.kind === "unreadable_events"
          ? subject.shapeKey
          : subject.orderId,
  };
}

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

/** A Needs-attention listing: open items still in trouble, newest first, and how many of each kind. */
export interface AttentionList {
  items: AttentionItem[];
  counts: Record<AttentionKind, number>;
}
