/**
 * What the order workflow needs from the outside world, as interfaces: orders/ knows nothing of Bolt or HTTP.
 * The Slack implementation is src/slack/notifier.ts; the workflow step decorates it to complete its function.
 */
import type { Order, OriginMessage } from "./model/order.ts";
import type { AttentionSubject } from "./operations/types.ts";

export type OrderChange =
  /** Stored and waiting for (or in) placement: the "placing order for TICKET …" message. */
  | { kind: "placing" }
  /** The supplier accepted it (correlationId, or `placedEarlier` when a retry proved an earlier attempt). */
  | { kind: "placed" }
  /** The supplier (or our copy of its rules) refused it: `order.failure` has the reasons; fix and resubmit. */
  | { kind: "rejected" }
  /** Not placed yet and retried automatically (supplier unavailable, key rejected): `reason` in plain words. */
  | { kind: "retrying"; reason: string; nextAttemptAt?: Date | undefined }
  /** Given up for good: `order.failure` says why. */
  | { kind: "failed" }
  /** Waiting for approval, or an approver's decision or the expiry (`order.approval`, src/orders/approvals/). */
  | { kind: "approval" };

/**
 * A piece of an alert's text: words, shown as written (a ticket id or a supplier's message in them is never read
 * as markup, so it cannot mention anyone), or a channel or person Slack shows as a link.
 */
export type AlertPart = string | { channel: string } | { user: string };

export interface AdminAlert {
  /** Stable id so an alert is sent once (e.g. `unauthorized:<secret>:<key versions>`). */
  key: string;
  title: string;
  /** Plain words, or words and references; never a secret (keys appear redacted only). */
  text: string | readonly AlertPart[];
  /**
   * What the alert is about, when an admin can act on it from Slack (Retry now, Retry posting, Attach…): such an
   * alert opens an attention item (src/orders/operations/) and carries its buttons.
   */
  subject?: AttentionSubject;
}

/**
 * `earlierAttempt`: the caller recorded the alert as attempted before this call, and an earlier attempt was
 * recorded too (its post may be in the admin channel with its answer lost: a timeout, a kill), so the alert is
 * looked for there, by its key, before it is posted again. Null or absent: post straight away.
 */
export interface AlertOptions {
  earlierAttempt?: Date | null | undefined;
}

/** An alert's text as plain words, references written `#C…` and `@U…` (for logs). */
export function alertPlainText(alert: Pick<AdminAlert, "text">): string {
  if (typeof alert.text === "string") return alert.text;
  return alert.text
    .map((part) =>
      typeof part === "string" ? part : "channel" in part ? `#${part.channel}` : `@${part.user}`,
    )
    .join("");
}

/**
 * `signal`: the job's, so a shutdown or an expired run is not held up by waits it can cut short (Slack's
 * Retry-After); a Web API call already on the wire still ends at its own timeout.
 */
export interface SlackCallOptions {
  signal?: AbortSignal | undefined;
}

export interface OrderNotifier {
  /**
   * Shows the order's new state: posts its message when it has none yet and returns where it went (the job
   * records it), or updates the existing message and returns null. Handles what it can work around itself
   * (bot not in the channel → the requester's DM); throws only when nothing could be shown.
   */
  publish(order: Order, change: OrderChange, options?: SlackCallOptions): Promise<OriginMessage | null>;
  /**
   * The order's message if an earlier `publish` posted it but its answer was never recorded (the process died,
   * the answer was lost), else null. Used by `showOrder` (show-order.ts) before posting again.
   */
  findPublished?(order: Order, options?: SlackCallOptions): Promise<OriginMessage | null>;
  /** Posts the alert once per key in this process; every alert carries its key in its metadata. */
  alertAdmins(alert: AdminAlert, options?: AlertOptions): Promise<void>;
}

/** What placement counts (src/metrics.ts implements it with Prometheus counters). */
export interface PlacementMetrics {
  /** The supplier accepted the order (or a retry proved an earlier attempt had placed it). */
  placed(source: string): void;
  /** The supplier, or our copy of its rules, refused the order: `reason` is the error code. */
  rejected(reason: string): void;
  /** A placement attempt failed for a reason other than the order itself (retried or final). */
  failed(reason: string): void;
}
