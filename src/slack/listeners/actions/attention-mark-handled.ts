import type { SlackContext } from "../../context.ts";
import { operatorButton } from "../../operator-click.ts";

/** Mark handled on a failed placement: the alert is closed; the order stays as it is. Admins only (checked on the server). */
export function attentionMarkHandled(ctx: SlackContext) {
  return operatorButton(ctx, "mark_handled");
}
