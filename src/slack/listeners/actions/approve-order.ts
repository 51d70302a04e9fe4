import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { decideApproval } from "../../../orders/approvals/decide.ts";
import { decideWithin } from "../../../orders/click-deadline.ts";
import type { SlackContext } from "../../context.ts";
import { publishHome } from "../../home.ts";
import { notRecorded } from "../../operator-click.ts";
import { notifyUser } from "../../view-failures.ts";
import { approvalOrderId } from "./reject-order.ts";

const NOT_SAVED =
  "Order Desk could not save your approval just now, so nothing was changed. Click Approve again in a moment.";

/**
 * "Approve" in an approver's DM (or App Home): decided on the server before the ack, within the click's bound
 * (`decideApproval`: the clicker must be an approver of the order's profile now and not its requester, and the
 * order still waiting; the button's value is only the order's id to look up), so an acked click is recorded even
 * if the process dies the next moment. The first decision wins; the DMs, the order's message and its thread follow
 * from the `approval-decision` job. A refusal, or a click not decided in time (rolled back), is told to the clicker
 * only, after the ack.
 */
export function approveOrder(ctx: SlackContext) {
  return async ({
    ack,
    body,
    action,
    client,
    respond,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    const userId = body.user.id;
    const orderId = approvalOrderId(action.value);
    const target = { userId, respond: body.response_url ? respond : undefined, channelId: body.channel?.id };
    let decided: Awaited<ReturnType<typeof decideWithin<Awaited<ReturnType<typeof decideApproval>>>>>;
    try {
      decided = await decideWithin(
        ctx.clickDecisionMs,
        (deadline) => decideApproval(ctx.approvals, { orderId, userId, outcome: "approved" }, deadline),
        (error) => ctx.logger.error({ err: error, orderId }, "an approval failed after its bound"),
      );
    } catch (error) {
      await ack();
      ctx.logger.error({ err: error, orderId }, "could not record an approval");
      await notifyUser(client, target, NOT_SAVED, ctx.logger);
      return;
    }
    await ack();
    if (!decided.decided) {
      ctx.logger.warn({ orderId, userId, boundMs: ctx.clickDecisionMs }, "approval not decided in time");
      await notifyUser(client, target, notRecorded("Click Approve again."), ctx.logger);
      return;
    }
    const result = decided.value;
    if ("refused" in result) {
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
