/**
 * Applies one stored supplier event to its order: the status only forward (`applySupplierStatus`), tracking only
 * when newer (tracking.ts). True when the order changed.
 */
import type { Store } from "../../store/db.ts";
import type { StoredEvent } from "../../store/repositories/events.ts";
import { applySupplierStatus, getOrderForUpdate, setTracking } from "../../store/repositories/orders.ts";
import { parseStoredEvent } from "./stored-event.ts";
import { foldTracking, readTracking, trackingInfoOf } from "./tracking.ts";

export async function applyEvent(store: Store, orderId: string, event: StoredEvent): Promise<boolean> {
  const parsed = parseStoredEvent(event);
  if (parsed.kind === "status_changed") {
    return (await applySupplierStatus(store, orderId, parsed.event.data.status, event.occurredAt)) !== null;
  }
  if (parsed.kind === "shipping_updated") {
    const info = trackingInfoOf(parsed.event);
    return store.transaction(async (tx) => {
      const order = await getOrderForUpdate(tx, orderId);
      const next = order && foldTracking(readTracking(order.tracking), info);
      if (!next) return false;
      await setTracking(tx, orderId, next);
      return true;
    });
  }
  return false;
}
