import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { newOrderModal, replaceIfNotAllowed } from "../../order-modal-views.ts";

/** "Place an order" on App Home: every profile is on offer; the order's message goes to the user's DM. */
export function homePlaceOrder(ctx: SlackContext) {
  return async ({
    ack,
    body,
    client,
    logger,
  }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs) => {
    await ack();
    const profiles = ctx.customer.config.profiles;
    const opened = await client.views.open({
      trigger_id: body.trigger_id,
      view: newOrderModal(ctx, { userId: body.user.id, profiles, source: "home", ticket: "" }),
    });
    try {
      await replaceIfNotAllowed(ctx, client, opened.view, profiles, body.user.id);
    } catch (error) {
      logger.warn(`early authorization check failed: ${(error as Error).message}`);
    }
  };
}
