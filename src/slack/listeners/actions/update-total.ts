import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { hasCountryLimits } from "../../blocks/order-modal-lines.ts";
import type { SlackContext } from "../../context.ts";
import { updateOrderModal } from "../../form-actions.ts";

/**
 * An item chosen, a quantity typed or the country chosen in a form with prices or items limited to some countries:
 * the form is rebuilt from what is typed, so the total under the lines follows, and a line whose item does not ship
 * to the country says so (a stale rebuild loses to the newer one by the view's hash).
 */
export function updateTotal(ctx: SlackContext) {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs) => {
    await ack();
    const { customer } = ctx;
    if (!body.view || (customer.config.currency === undefined && !hasCountryLimits(customer))) return;
    const clicked = { userId: body.user.id, retry: "choose it again" };
    await updateOrderModal(ctx, client, body.view, clicked, (form, meta) => ({ form, meta }));
  };
}
