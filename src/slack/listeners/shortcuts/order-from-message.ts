import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { newOrderModal, replaceIfNotAllowed } from "../../order-modal-views.ts";
import { findTicketId } from "../../ticket.ts";

/**
 * The "Order equipment" message shortcut on a ticket message: the ticket id is read from the message, and the
 * order's message will be a reply in that message's thread.
 */
export function orderFromMessage(ctx: SlackContext) {
  return async ({
    shortcut,
    ack,
    client,
    logger,
  }: SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs) => {
    await ack();
    const channelId = shortcut.channel.id;
    const profiles = ctx.customer.profilesForChannel(channelId);
    if (profiles.length === 0) {
      await client.views.open({
        trigger_id: shortcut.trigger_id,
        view: {
          type: "modal",
          title: { type: "plain_text", text: "Order equipment" },
          close: { type: "plain_text", text: "Close" },
          blocks: [
            {
              type: "section",
              text: {
                type: "mrkdwn",
                text: `Ordering is not set up for <#${channelId}>. Ask an Order Desk admin to add this channel to a profile in order-desk.config.yml.`,
              },
            },
          ],
        },
      });
      return;
    }
    const message = shortcut.message as { ts: string; thread_ts?: string; text?: string };
    const view = newOrderModal(ctx, {
      userId: shortcut.user.id,
      profiles,
      source: "shortcut",
      channelId,
      // Replies cannot have replies: a shortcut on a reply joins its parent's thread.
      threadTs: message.thread_ts ?? message.ts,
      ticket: findTicketId(message.text ?? "", ctx.customer.ticketIdPattern) ?? "",
    });
    const opened = await client.views.open({ trigger_id: shortcut.trigger_id, view });
    try {
      await replaceIfNotAllowed(ctx, client, opened.view, profiles, shortcut.user.id);
    } catch (error) {
      logger.warn(`early authorization check failed: ${(error as Error).message}`);
    }
  };
}
