import type { SlackContext } from "../../context.ts";
import { operatorButton } from "../../operator-click.ts";

/** Retry now on a placement that failed for good: one new placement run, once. Admins only (checked on the server). */
export function attentionRetryOrder(ctx: SlackContext) {
  return operatorButton(ctx, "retry_order");
}
