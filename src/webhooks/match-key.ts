/**
 * The key a supplier event is matched to its order by, kept in `supplier_events.correlation_id`: the supplier's
 * correlation id, or, for a supplier whose events name only the order's document number, `edn:` + that number.
 * The prefix cannot be a correlation id (those are UUIDs), so the two never collide, and an event of an order we
 * do not know is an orphan under one key either way (alerts, "Attach to order…", the sweep).
 */
import type { SupplierEventCanonical as SupplierEvent } from "../supplier/events.ts";

export const DOCUMENT_NUMBER_KEY_PREFIX = "edn:";

export function matchKeyOf(event: Pick<SupplierEvent, "correlationId" | "externalDocumentNumber">): string {
  if (event.correlationId !== undefined) return event.correlationId;
  // The mapping guarantees one of the two (src/supplier/events.ts).
  return `${DOCUMENT_NUMBER_KEY_PREFIX}${event.externalDocumentNumber ?? ""}`;
}
