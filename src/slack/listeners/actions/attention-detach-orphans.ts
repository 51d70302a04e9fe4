import { runDetach } from "../../../orders/operations/detach.ts";
import type { SlackContext } from "../../context.ts";
import { decidedButton } from "../../operator-click.ts";

/**
 * Detach on an orphan alert resolved as attached: the attach is undone, once, before the click's ack (the updates
 * are orphans again with a new alert; the alert and the order's thread say so). Admins only (checked on the server).
 */
export function attentionDetachOrphans(ctx: SlackContext) {
  return decidedButton(ctx, "detach_orphans", (request) => runDetach(ctx.operators.deps, request));
}
