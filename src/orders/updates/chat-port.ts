/**
 * The port through which the post-update job talks to the order's thread: post a reply, update the order
 * message, find a reply posted before. Implemented over Slack's Web API in slack/outbound/chat.ts; its failures
 * are the `UpdateError`s of errors.ts, never the transport's own.
 */

export interface PostMessageArgs {
  channel: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  reply_broadcast?: boolean;
  /** Message metadata (e.g. the event id), so a reply can be traced back to its event. */
  metadata?: { event_type: string; event_payload: Record<string, string | number | boolean> };
}

export interface UpdateMessageArgs {
  channel: string;
  ts: string;
  text: string;
  blocks?: unknown[];
}

export interface FindReplyArgs {
  channel: string;
  threadTs: string;
  /** The reply's `metadata.event_type`. */
  eventType: string;
  /** Matched against the reply's `metadata.event_payload.event_id`. */
  eventId: string;
  /** When it was last attempted: only the replies since then (less a minute for the clocks' skew) are read. */
  attemptedAt?: Date;
}

export interface SlackChat {
  /** Resolves to the new message's ts. Throws `UpdateError`s. */
  postMessage(args: PostMessageArgs): Promise<{ ts: string }>;
  /** Throws `UpdateError`s. */
  update(args: UpdateMessageArgs): Promise<void>;
  /**
   * The ts of the thread's reply posted by us for this event, or null. Reads the thread (which needs the history
   * scopes: a `ChatCallFailedError` with reason `missing_scope` without them), at the pace of Slack's limits on
   * reading (slack/outbound/history.ts): only after an interrupted post, never for a first one. Throws `UpdateError`s.
   */
  findReply(args: FindReplyArgs): Promise<string | null>;
}
