/**
 * What of an order's supplier events goes to its Slack thread, and what also goes to the channel.
 *
 * `updates: milestones` (the default) replies only for what people in the channel follow:
 *   - placed: the supplier's `received` (its reply names the correlation id);
 *   - each parcel shipped (carrier, tracking link, expected date); a `shipped` status only when the supplier sends
 *     no parcel updates at all for the order, so a shipment is never silent;
 *   - delivered, once: the last parcel delivered or the order delivered, whichever is handled first;
 *   - every delivery exception and cancellation, and every event we cannot classify (a new type, a state we do
 *     not know): it may be a rejection, so it is shown rather than guessed away.
 * Warehouse steps (validated, picked, packed…), parcels in transit or out for delivery, and the second word on a
 * delivery stay out of the thread: they still move the status line and App Home, and are kept in the store.
 * `updates: all` replies for every event, as before.
 *
 * Broadcasts (`reply_broadcast`, "also sent to the channel") are decided the same way under both settings: at
 * most one per order for its delivery, one per exception or cancellation, each subject to `broadcast:`.
 *
 * A pure function of the event and the order's events as stored: the milestone a reply announced is recorded
 * with it (`reply_milestone`), so a retried job, another replica or a restart never announces a delivery twice.
 */
import type { CustomerConfig, UpdatesVerbosity } from "../../config/customer-schema.ts";
import { DEFAULT_UPDATES } from "../../config/customer-schema.ts";
import { type ParsedSupplierEvent, parseSupplierEvent, SHIPPING_UPDATED } from "../../supplier/events.ts";

export type { UpdatesVerbosity } from "../../config/customer-schema.ts";

export type Milestone = "placed" | "shipped" | "delivered" | "exception" | "cancelled" | "unclassified";

/** The milestones that may also go to the channel; the customer file's `broadcast:` turns each off. */
export type BroadcastKind = "delivered" | "cancelled" | "exception";
export type BroadcastSettings = Partial<Record<BroadcastKind, boolean>>;

/** An event as the store has it (the fields the decision reads). */
export interface EventForDecision {
  id: string;
  type: string;
  payload: unknown;
  postedAt: Date | null;
  replyMilestone: string | null;
}

export interface ReplyDecision {
  /** Post a threaded reply (false: mark it handled, nothing in Slack). */
  post: boolean;
  /** Also send it to the channel. */
  broadcast: boolean;
  /** What the reply announces, recorded with the event (null for a plain update, or no reply). */
  milestone: Milestone | null;
}

/** The verbosity of an order's thread: its profile's `updates`, else the customer file's top-level one. */
export function updatesFor(
  config: Pick<CustomerConfig, "updates" | "profiles">,
  profileName: string,
): UpdatesVerbosity {
  const profile = config.profiles.find((p) => p.name === profileName);
  return profile?.updates ?? config.updates ?? DEFAULT_UPDATES;
}

function parse(event: EventForDecision): ParsedSupplierEvent | null {
  try {
    return parseSupplierEvent(event.payload, { orderBy: "either" });
  } catch {
    return null; // no longer an event at all: shown generically, like an unknown type
  }
}

/** Every parcel of the order has a `delivered` update among `events`. */
function allParcelsDelivered(of: number, events: readonly ParsedSupplierEvent[]): boolean {
  const delivered = new Set<number>();
  for (const e of events) {
    if (e.kind === "shipping_updated" && e.event.data.status === "delivered") {
      delivered.add(e.event.data.parcel.number);
    }
  }
  for (let n = 1; n <= of; n++) if (!delivered.has(n)) return false;
  return true;
}

/** What this event is for the people following the order, given the order's other events. */
function milestoneOf(
  parsed: ParsedSupplierEvent | null,
  handled: readonly ParsedSupplierEvent[],
  hasParcelUpdates: boolean,
): Milestone | null {
  if (parsed === null || parsed.kind === "unknown") return "unclassified";
  if (parsed.kind === "status_changed") {
    switch (parsed.event.data.status) {
      case "received":
        return "placed";
      case "delivered":
        return "delivered";
      case "cancelled":
        return "cancelled";
      case "shipped":
      case "partially_shipped":
        return hasParcelUpdates ? null : "shipped";
      default:
        return null;
    }
  }
  const data = parsed.event.data;
  if (data.status === "exception" || data.exceptionReason) return "exception";
  if (data.status === "shipped") return "shipped";
  if (data.status === "delivered") {
    return allParcelsDelivered(data.parcel.of, [...handled, parsed]) ? "delivered" : null;
  }
  return null;
}

/**
 * Whether `event` gets a threaded reply, whether it also goes to the channel, and which milestone it announces.
 * `orderEvents` are all of the order's stored events (this one included); those with `postedAt` were handled.
 */
export function decideReply(
  event: EventForDecision,
  orderEvents: readonly EventForDecision[],
  options: { updates: UpdatesVerbosity; broadcast?: BroadcastSettings | undefined },
): ReplyDecision {
  const handledEvents = orderEvents.filter((e) => e.postedAt !== null && e.id !== event.id);
  const handled = handledEvents.map(parse).filter((e): e is ParsedSupplierEvent => e !== null);
  const hasParcelUpdates = orderEvents.some((e) => e.type === SHIPPING_UPDATED);
  let milestone = milestoneOf(parse(event), handled, hasParcelUpdates);
  // The delivery is announced once: whichever of "last parcel delivered" and "order delivered" came first.
  if (milestone === "delivered" && handledEvents.some((e) => e.replyMilestone === "delivered")) {
    milestone = null;
  }
  const post = options.updates === "all" || milestone !== null;
  const broadcast =
    post &&
    (milestone === "delivered" || milestone === "cancelled" || milestone === "exception") &&
    options.broadcast?.[milestone] !== false;
  return { post, broadcast, milestone };
}
