/**
 * Authentic deliveries the mapping cannot read (customer file, `supplierEvents`): kept with their raw body and
 * the reason, never posted into a thread, and told to the admins once per shape of body (an admin alert and a
 * "Needs attention" item), not once per delivery. After the mapping is corrected they are reprocessed
 * (reprocess.ts).
 *
 * The delivery and the attention item for its shape are written in one transaction: of many deliveries of a new
 * shape arriving together, exactly one opens the item, and only that one posts the alert (after the supplier got
 * its answer). An alert whose post fails is posted later by the periodic pass over unsent alerts.
 */
import { randomUUID } from "node:crypto";
import { postAlert } from "../orders/operations/post-alert.ts";
import type { AttentionAlerts } from "../orders/operations/report.ts";
import type { AttentionItem } from "../orders/operations/types.ts";
import type { AlertPart } from "../orders/ports.ts";
import type { Store } from "../store/db.ts";
import { openAttention } from "../store/repositories/attention.ts";
import { type DeliveryInfo, insertUnreadable, type ShapeField } from "../store/repositories/unreadable.ts";

/** What the mapping made of a body it could not read. */
export interface Unreadable {
  /** The supplier's event id, when the mapping found one. */
  eventId?: string;
  reason: string;
  /** The `supplierEvents` key at fault, when there is one. */
  field?: string;
}

export interface BodyShape {
  key: string;
  fields: readonly ShapeField[];
  /** Fields left out of `fields` (a large body). */
  more: number;
}

/** The key an unreadable delivery is deduplicated by: the event id the mapping found, else the body's hash. */
export function unreadableKey(eventId: string | undefined, bodyHash: string): string {
  return eventId !== undefined ? `id:${eventId}` : `sha256:${bodyHash}`;
}

const FIELDS_SHOWN = 25;

/** The alert about a new shape: what is wrong, what the body looks like (names and types only), what to do. */
export function unreadableAlert(
  shape: BodyShape,
  first: { reason: string; receivedAt: Date },
  open: number,
): { title: string; text: AlertPart[] } {
  const listed = shape.fields.slice(0, FIELDS_SHOWN).map((f) => `${f.path} (${f.type})`);
  const left = shape.fields.length - listed.length + shape.more;
  return {
    title: "Supplier deliveries Order Desk cannot read",
    text: [
      `${open} signed deliver${open === 1 ? "y" : "ies"} from the supplier since ${first.receivedAt.toISOString()} ` +
        `could not be read as events (shape ${shape.key}). The first: ${first.reason} ` +
        `Its fields (values left out): ${listed.join(", ") || "none"}${left > 0 ? ` and ${left} more` : ""}. ` +
        "They are kept, and nothing was posted to any order's thread. Correct `supplierEvents` in the customer file " +
        "(docs/webhooks.md, Connecting your supplier's events), try a body with `order-desk events check`, restart, " +
        "then Reprocess.",
    ],
  };
}

export interface KeepUnreadableInput extends Unreadable {
  bodyHash: string;
  body: Buffer;
  delivery: DeliveryInfo;
  shape: BodyShape;
  receivedAt: Date;
}

export interface KeptUnreadable {
  /** The same delivery was kept before (a redelivery). */
  duplicate: boolean;
  /** The item this delivery opened for its shape (its alert is to be posted), or null. */
  opened: AttentionItem | null;
}

export async function keepUnreadable(
  deps: { store: Store; newId?: () => string },
  input: KeepUnreadableInput,
): Promise<KeptUnreadable> {
  return deps.store.transaction(async (tx) => {
    const inserted = await insertUnreadable(tx, {
      id: unreadableKey(input.eventId, input.bodyHash),
      delivery: input.delivery,
      body: input.body,
      reason: input.reason,
      field: input.field ?? null,
      shapeKey: input.shape.key,
      shape: { fields: input.shape.fields, more: input.shape.more },
    });
    if (!inserted) return { duplicate: true, opened: null };
    const { item, created } = await openAttention(tx, {
      id: (deps.newId ?? randomUUID)(),
      kind: "unreadable_events",
      subject: input.shape.key,
      alert: unreadableAlert(input.shape, input, 1),
    });
    return { duplicate: false, opened: created ? item : null };
  });
}

/** Posts a newly opened item's alert and records where; a failure is left to the pass over unsent alerts. */
export async function postOpenedAlert(
  deps: { store: Store; alerts: AttentionAlerts },
  item: AttentionItem,
): Promise<void> {
  await postAlert(deps.store, deps.alerts, item);
}
