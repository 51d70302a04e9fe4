import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { getOrder } from "../../../store/repositories/orders.ts";
import { canResubmit } from "../../blocks/order-message.ts";
import type { SlackContext } from "../../context.ts";
import { resubmitModal } from "../../order-modal-views.ts";

/**
 * "Fix and resubmit" on a rejected order's message: reopens the modal with the values that were sent and the
 * supplier's objections under their fields. Submitting it resubmits the same order (same message and thread).
 */
export function fixAndResubmit(ctx: SlackContext) {
  return async ({
    ack,
    body,
    action,
    client,
    respond,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const order = action.value ? await getOrder(ctx.store, action.value) : null;
    const view = order && canResubmit(order) ? resubmitModal(ctx, order) : null;
    if (!order || !view) {
      await respond({
        response_type: "ephemeral",
        replace_original: false,
        text: order
          ? "This order can no longer be resubmitted (it was placed or resubmitted meanwhile). Use /order for a new one."
          : "This order no longer exists. Use /order to place a new one.",
      });
      return;
    }
    await client.views.open({ trigger_id: body.trigger_id, view });
  };
}
