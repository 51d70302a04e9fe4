import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs, types } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { newOrderModal, replaceIfNotAllowed } from "../../order-modal-views.ts";
import { findTicketId } from "../../ticket.ts";
import { tellViewFailed } from "../../view-failures.ts";

function notSetUpModal(channelId: string): types.ModalView {
  return {
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
  };
}

/**
 * The "Order equipment" message shortcut on a ticket message: the ticket id is read from the message, and the
 * order's message will be a reply in that message's thread. When the form does not open, the user is told so
 * (ephemeral, through the shortcut's response_url).
 */
export function orderFromMessage(ctx: SlackContext) {
  return async ({
    shortcut,
    ack,
    client,
    logger,
    respond,
  }: SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs) => {
    await ack();
    const channelId = shortcut.channel.id;
    const profiles = ctx.customer.profilesForChannel(channelId);
    const message = shortcut.message as { ts: string; thread_ts?: string; text?: string };
    const view =
      profiles.length === 0
        ? notSetUpModal(channelId)
        : newOrderModal(ctx, {
            userId: shortcut.user.id,
            profiles,
            source: "shortcut",
            channelId,
            // Replies cannot have replies: a shortcut on a reply joins its parent's thread.
            threadTs: message.thread_ts ?? message.ts,
            ticket: findTicketId(message.text ?? "", ctx.customer.ticketIdPattern) ?? "",
          });
    let opened: Awaited<ReturnType<typeof client.views.open>>;
    try {
      opened = await client.views.open({ trigger_id: shortcut.trigger_id, view });
    } catch (error) {
      await tellViewFailed(client, { userId: shortcut.user.id, respond, channelId }, error, {
        action: "open",
        retry: "use Order equipment on the message again",
        logger: ctx.logger,
      });
      return;
    }
    if (profiles.length === 0) return;
    try {
      await replaceIfNotAllowed(ctx, client, opened.view, profiles, shortcut.user.id);
    } catch (error) {
      logger.warn(`early authorization check failed: ${(error as Error).message}`);
    }
  };
}
