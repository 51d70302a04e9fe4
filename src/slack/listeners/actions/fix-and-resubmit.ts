import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { Profile } from "../../../config/customer-schema.ts";
import { orderById } from "../../../orders/lookup.ts";
import { canResubmit, type Order } from "../../../orders/model/order.ts";
import { escapeMrkdwn } from "../../blocks/text.ts";
import type { SlackContext } from "../../context.ts";
import { resubmitModal } from "../../order-modal-views.ts";
import { tellViewFailed } from "../../view-failures.ts";

/** Who may resubmit: the people the profile lets order (its users and user groups), in Slack's mention syntax. */
function whoMayResubmit(profile: Profile): string {
  const people = [
    ...profile.allowedUsers.map((id) => `<@${id}>`),
    ...profile.allowedUserGroups.map((id) => `members of <!subteam^${id}>`),
  ];
  if (people.length <= 1) return people.join("");
  return `${people.slice(0, -1).join(", ")} or ${people.at(-1)}`;
}

export function notAllowedToResubmitText(order: Order, profile: Profile): string {
  const placedBy =
    order.source === "workflow" ? "A workflow placed it." : `<@${order.requestedBy}> placed it.`;
  return (
    `You cannot resubmit order ${escapeMrkdwn(order.externalDocumentNumber)}: only people allowed to order with ` +
    `the profile "${escapeMrkdwn(profile.name)}" can resubmit it, that is ${whoMayResubmit(profile)}. ${placedBy}`
  );
}

/**
 * "Fix and resubmit" on a rejected order's message: reopens the modal with the values that were sent and the
 * supplier's objections under their fields. Submitting it resubmits the same order (same message and thread).
 * The form shows the recipient's address, phone and e-mail, so it opens only for someone the order's profile
 * lets order: the same check (`Authorizer.check`, src/orders/authorization.ts) the resubmission runs again.
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
    const say = (text: string) => respond({ response_type: "ephemeral", replace_original: false, text });
    const order = action.value ? await orderById(ctx.store, action.value) : null;
    if (!order) {
      await say("This order no longer exists. Use /order to place a new one.");
      return;
    }
    const profile = ctx.customer.profile(order.profile);
    if (!profile) {
      await say(
        `This order's profile "${escapeMrkdwn(order.profile)}" is no longer set up in Order Desk, so it cannot be resubmitted. Use /order for a new one.`,
      );
      return;
    }
    const allowed = await ctx.orders.authorizer.check(profile, body.user.id);
    if (!allowed.allowed) {
      ctx.logger.info(
        { orderId: order.id, userId: body.user.id, reason: allowed.reason },
        "fix and resubmit refused: the user may not order with the order's profile",
      );
      await say(
        allowed.reason === "lookup_failed" ? allowed.message : notAllowedToResubmitText(order, profile),
      );
      return;
    }
    const view = canResubmit(order) ? resubmitModal(ctx, order, body.user.id) : null;
    if (!view) {
      await say(
        "This order can no longer be resubmitted (it was placed or resubmitted meanwhile). Use /order for a new one.",
      );
      return;
    }
    try {
      await client.views.open({ trigger_id: body.trigger_id, view });
    } catch (error) {
      await tellViewFailed(
        client,
        { userId: body.user.id, respond, channelId: order.slackChannelId ?? undefined },
        error,
        { action: "open", retry: "click Fix and resubmit again", logger: ctx.logger },
      );
    }
  };
}
