import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { decideApproval } from "../../../orders/approvals/decide.ts";
import type { SlackContext } from "../../context.ts";
import { publishHome } from "../../home.ts";
import { notifyUser } from "../../view-failures.ts";
import { approvalOrderId } from "./reject-order.ts";

/**
 * "Approve" in an approver's DM (or App Home): acked at once, then decided on the server
 * (`decideApproval`: the clicker must be an approver of the order's profile now and not its requester, and the
 * order still waiting; the button's value is only the order's id to look up). The first decision wins; the DMs,
 * the order's message and its thread follow from the `approval-decision` job. A refusal is told to the clicker
 * only, and nothing changes.
 */
export function approveOrder(ctx: SlackContext) {
  return async ({
    ack,
    body,
    action,
    client,
    respond,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const userId = body.user.id;
    const result = await decideApproval(ctx.approvals, {
      orderId: approvalOrderId(action.value),
      userId,
      outcome: "approved",
    });
    if ("refused" in result) {
      const target = {
        userId,
        respond: body.response_url ? respond : undefined,
        channelId: body.channel?.id,
      };
      await notifyUser(client, target, result.message, ctx.logger);
      return;
    }
    // Clicked in App Home: the order leaves "Waiting for your approval" there at once.
    if (body.view?.type === "home") {
      await publishHome(ctx, client, userId).catch((error: unknown) =>
        ctx.logger.warn({ err: error, userId }, "could not refresh the approver's App Home"),
      );
    }
  };
}
