import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { orderCommandHelp, parseOrderCommand } from "../../order-command-args.ts";
import { newOrderModal, replaceIfNotAllowed } from "../../order-modal-views.ts";
import { tellViewFailed } from "../../view-failures.ts";
import { answerOrderExport } from "./order-export.ts";
import { answerOrderStatus } from "./order-status.ts";

/**
 * `/order help` lists the command's forms; `/order export [YYYY-MM]` sends an admin the month's orders as CSV
 * (order-export.ts); `/order status TICKET-ID` lists the ticket's orders (order-status.ts).
 * `/order [TICKET-ID]`: ack, then `views.open` straight away (the trigger expires in 3 s), then the slower
 * authorization check, which replaces the form with the reason when the user may not order here. When the form
 * does not open, the user is told so (ephemeral, through the command's response_url).
 */
export function orderCommand(ctx: SlackContext) {
  return async ({
    command,
    ack,
    client,
    logger,
    respond,
  }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    const asked = parseOrderCommand(command.text, ctx.customer.ticketIdPattern);
    if (asked.kind === "help") {
      await ack({ response_type: "ephemeral", text: orderCommandHelp(command.command) });
      return;
    }
    if (asked.kind === "export") {
      // Admins may export from anywhere (a DM, the admin channel): no profile needed.
      await ack();
      const request = { month: asked.month, command: command.command, userId: command.user_id };
      await answerOrderExport(ctx, client, respond, request).catch(async (error: unknown) => {
        ctx.logger.error({ err: error, month: asked.month }, "could not export the orders");
        await respond({
          response_type: "ephemeral",
          text: "Order Desk could not export the orders just now; try again in a few minutes. If it keeps failing, the log says why.",
        }).catch(() => {});
      });
      return;
    }
    const profiles = ctx.customer.profilesForChannel(command.channel_id);
    if (profiles.length === 0) {
      await ack({
        response_type: "ephemeral",
        text: `Ordering is not set up for <#${command.channel_id}>. Use /order in a helpdesk channel, or ask an Order Desk admin to add this channel to a profile in order-desk.config.yml.`,
      });
      return;
    }
    await ack();
    if (asked.kind === "status") {
      const request = {
        reference: asked.reference,
        command: command.command,
        channelId: command.channel_id,
        userId: command.user_id,
      };
      await answerOrderStatus(ctx, client, respond, request, profiles).catch(async (error: unknown) => {
        ctx.logger.error({ err: error, reference: asked.reference }, "could not answer /order status");
        await respond({
          response_type: "ephemeral",
          text: "Order Desk could not look up the orders just now; try again in a minute.",
        }).catch(() => {});
      });
      return;
    }
    const view = newOrderModal(ctx, {
      userId: command.user_id,
      profiles,
      source: "command",
      channelId: command.channel_id,
      ticket: asked.ticket,
    });
    let opened: Awaited<ReturnType<typeof client.views.open>>;
    try {
      opened = await client.views.open({ trigger_id: command.trigger_id, view });
    } catch (error) {
      await tellViewFailed(
        client,
        { userId: command.user_id, respond, channelId: command.channel_id },
        error,
        { action: "open", retry: `run ${command.command} again`, logger: ctx.logger },
      );
      return;
    }
    try {
      await replaceIfNotAllowed(ctx, client, opened.view, profiles, command.user_id);
    } catch (error) {
      // The submit checks again; a failed early check only costs the user a later message.
      logger.warn(`early authorization check failed: ${(error as Error).message}`);
    }
  };
}
