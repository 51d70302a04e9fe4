import type { SlackContext } from "../../context.ts";
import { operatorButton } from "../../operator-click.ts";

/** Ignore on orphan events: the alert is closed; the events stay stored, unattached. Admins only (checked on the server). */
export function attentionIgnoreOrphans(ctx: SlackContext) {
  return operatorButton(ctx, "ignore_orphans");
}
