/** Admin alerts as the app raises them, for tests of what the admin channel shows and when. */
import type { AdminAlert } from "../../../src/orders/ports.ts";

/** Supplier updates for an order nobody knows (by its correlation id): an alert with an attention item and buttons. */
export function orphanEventsAlert(correlationId: string): AdminAlert {
  return {
    key: `orphan-events:${correlationId}`,
    title: "Supplier updates for an unknown order",
    text: `updates for correlation id ${correlationId}`,
    subject: { kind: "orphan_events", correlationId },
  };
}
