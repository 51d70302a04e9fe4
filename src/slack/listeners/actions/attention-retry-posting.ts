import type { SlackContext } from "../../context.ts";
import { operatorButton } from "../../operator-click.ts";

/** Retry posting on updates that could not be posted: the order's waiting updates go out in order, once. Admins only (checked on the server). */
export function attentionRetryPosting(ctx: SlackContext) {
  return operatorButton(ctx, "retry_posting");
}
