/**
 * A stored supplier event read back: what the post-update job applies to the order (apply-event.ts) and what
 * the thread's reply is rendered from (slack/blocks/updates/). Parsed here, in the domain; the blocks only
 * render what this returns.
 */
import {
  type ParsedSupplierEvent,
  parseSupplierEvent,
  type SupplierEventCanonical,
} from "../../supplier/events.ts";

/** The stored event, as the post-update job has it. */
export interface EventToRender {
  id: string;
  type: string;
  occurredAt: Date;
  payload: unknown;
}

/** Parses a stored payload again; a payload that no longer parses at all is rendered generically too. */
export function parseStoredEvent(stored: EventToRender): ParsedSupplierEvent {
  try {
    return parseSupplierEvent(stored.payload, { orderBy: "either" });
  } catch (error) {
    const payload = (typeof stored.payload === "object" && stored.payload) || {};
    const event = {
      ...payload,
      id: stored.id,
      type: stored.type,
      occurredAt: stored.occurredAt.toISOString(),
      data: (payload as { data?: unknown }).data ?? payload,
    } as SupplierEventCanonical;
    return { kind: "unknown", event, issues: [error instanceof Error ? error.message : String(error)] };
  }
}
