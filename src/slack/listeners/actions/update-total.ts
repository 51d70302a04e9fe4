import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { updateOrderModal } from "../../form-actions.ts";

/**
 * An item chosen or a quantity typed in a form with prices: the form is rebuilt from what is typed, so the total
 * under the lines follows (a stale rebuild loses to the newer one by the view's hash).
 */
export function updateTotal(ctx: SlackContext) {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs) => {
    await ack();
    if (!body.view || ctx.customer.config.currency === undefined) return;
    const clicked = { userId: body.user.id, retry: "change the quantity again" };
    await updateOrderModal(ctx, client, body.view, clicked, (form, meta) => ({ form, meta }));
  };
}
