import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { newOrderModal, replaceIfNotAllowed } from "../../order-modal-views.ts";
import { tellViewFailed } from "../../view-failures.ts";

/**
 * "Place an order" on App Home: every profile is on offer; the order's message goes to the user's DM. App Home
 * has no response_url: when the form does not open, the user is told in the app's DM.
 */
export function homePlaceOrder(ctx: SlackContext) {
  return async ({
    ack,
    body,
    client,
    logger,
  }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs) => {
    await ack();
    const profiles = ctx.customer.config.profiles;
    let opened: Awaited<ReturnType<typeof client.views.open>>;
    try {
      opened = await client.views.open({
        trigger_id: body.trigger_id,
        view: newOrderModal(ctx, { userId: body.user.id, profiles, source: "home", ticket: "" }),
      });
    } catch (error) {
      await tellViewFailed(client, { userId: body.user.id }, error, {
        action: "open",
        retry: "click Place an order on the Home tab again",
        logger: ctx.logger,
      });
      return;
    }
    try {
      await replaceIfNotAllowed(ctx, client, opened.view, profiles, body.user.id);
    } catch (error) {
      logger.warn(`early authorization check failed: ${(error as Error).message}`);
    }
  };
}
