import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { allAttentionFor } from "../../../orders/operations/list.ts";
import { attentionListModal, SEE_ALL_LIMIT } from "../../blocks/attention.ts";
import type { SlackContext } from "../../context.ts";
import { noticeTarget, tell } from "../../operator-click.ts";

/**
 * "See all" under App Home's "Needs attention": a modal listing every open item, failed orders first (App Home shows
 * the first dozen). It changes nothing, so it is acked first; only admins get the list (checked on the server).
 */
export function attentionSeeAll(ctx: SlackContext) {
  return async (args: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await args.ack();
    const userId = args.body.user.id;
    const list = await allAttentionFor(
      { store: ctx.store, membership: ctx.operators.membership, config: ctx.customer.config },
      userId,
      SEE_ALL_LIMIT + 1,
    ).catch((error: unknown) => {
      ctx.logger.warn({ err: error, userId }, "could not list what needs attention");
      return undefined;
    });
    if (list === undefined) {
      await tell(
        ctx,
        args.client,
        noticeTarget(args),
        "Order Desk could not read the list just now. Try again in a minute.",
      );
      return;
    }
    if (list === null) {
      await tell(ctx, args.client, noticeTarget(args), "Only Order Desk admins see what needs attention.");
      return;
    }
    try {
      await args.client.views.open({ trigger_id: args.body.trigger_id, view: attentionListModal(list) });
    } catch (error) {
      ctx.logger.warn({ err: error, userId }, "could not open the Needs attention list");
      await tell(ctx, args.client, noticeTarget(args), "Slack did not open the list; click See all again.");
    }
  };
}
