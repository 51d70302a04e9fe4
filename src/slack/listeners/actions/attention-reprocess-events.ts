import type { SlackContext } from "../../context.ts";
import { operatorButton } from "../../operator-click.ts";

/**
 * Reprocess on unreadable supplier deliveries: the deliveries of the alert's shape are run through the mapping in
 * force (a durable job), each one it can now read posted once in its order's thread. Admins only (checked on the
 * server).
 */
export function attentionReprocessEvents(ctx: SlackContext) {
  return operatorButton(ctx, "reprocess_events");
}
