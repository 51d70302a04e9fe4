import type { RespondFn } from "@slack/bolt";
import type { Profile } from "../../../config/customer-schema.ts";
import { checkAdmin } from "../../../orders/admins.ts";
import { ordersByReference } from "../../../orders/lookup.ts";
import type { Order } from "../../../orders/model/order.ts";
import { visibleOrders } from "../../../orders/visibility.ts";
import { orderStatusMessage } from "../../blocks/order-status.ts";
import { escapeMrkdwn } from "../../blocks/text.ts";
import type { SlackContext } from "../../context.ts";
import { orderCommandHelp } from "../../order-command-args.ts";
import { channelMembershipFromClient, type WebClient } from "../../outbound/index.ts";

/** Orders shown in one answer (a ticket rarely has more; each is one section of the 50 a message may hold). */
export const STATUS_ORDER_LIMIT = 10;
/** Orders read before those the asker may not see are left out. */
const STATUS_LOOKUP_LIMIT = 50;

export interface StatusRequest {
  reference: string;
  command: string;
  channelId: string;
  userId: string;
}

/** The order message's link, or null (a DM order, a deleted message, Slack not answering). */
async function permalink(client: WebClient, order: Order): Promise<string | null> {
  if (!order.slackChannelId || !order.slackMessageTs) return null;
  try {
    const res = await client.chat.getPermalink({
      channel: order.slackChannelId,
      message_ts: order.slackMessageTs,
    });
    return typeof res.permalink === "string" ? res.permalink : null;
  } catch {
    return null;
  }
}

/**
 * `/order status TICKET-123` (or an order number): the orders of the channel's profiles that the user may order
 * with, answered ephemerally. Anyone allowed to order in the channel may look; nobody else sees anything. Of those
 * orders, only the ones the asker can see where they were posted are shown (`visibleOrders`: members of the order's
 * channel, its requester, admins); the others are counted.
 */
export async function answerOrderStatus(
  ctx: SlackContext,
  client: WebClient,
  respond: RespondFn,
  request: StatusRequest,
  profiles: readonly Profile[],
): Promise<void> {
  const say = (text: string) => respond({ response_type: "ephemeral", text });
  if (request.reference === "") {
    await say(
      `Which ticket or order? For example \`${request.command} status ABC-123\`.\n\n${orderCommandHelp(request.command)}`,
    );
    return;
  }
  const results = await Promise.all(profiles.map((p) => ctx.orders.authorizer.check(p, request.userId)));
  const allowed = profiles.filter((_, i) => results[i]?.allowed);
  if (allowed.length === 0) {
    const denied = results.find((r) => !r.allowed && r.reason === "lookup_failed") ?? results[0];
    await say(
      denied && !denied.allowed && denied.reason === "lookup_failed"
        ? denied.message
        : `Only people allowed to order in <#${request.channelId}> can look up its orders. Ask an Order Desk admin to add you (or your user group) to one of its profiles in order-desk.config.yml.`,
    );
    return;
  }
  const matching = await ordersByReference(
    ctx.store,
    request.reference,
    allowed.map((p) => p.name),
    STATUS_LOOKUP_LIMIT,
  );
  const { shown: found, leftOut } = await visibleOrders(
    matching,
    {
      userId: request.userId,
      askedIn: request.channelId,
      isAdmin: async () =>
        (await checkAdmin(ctx.operators.membership, ctx.customer.config, request.userId)).allowed,
    },
    channelMembershipFromClient(client, ctx.logger),
  );
  const hiddenNote =
    leftOut === 0
      ? ""
      : `${leftOut} more order${leftOut === 1 ? " was" : "s were"} left out: posted in a channel you are not in (or a DM). Ask someone in that channel, its requester or an Order Desk admin.`;
  if (found.length === 0) {
    if (leftOut > 0) {
      await say(`No order for *${escapeMrkdwn(request.reference)}* that you can see. ${hiddenNote}`);
      return;
    }
    await say(
      `No order for *${escapeMrkdwn(request.reference)}* among the orders of <#${request.channelId}>'s profiles. ` +
        `Check the ticket id or the order number; \`${request.command} help\` lists what the command does.`,
    );
    return;
  }
  const shown = found.slice(0, STATUS_ORDER_LIMIT);
  const links = await Promise.all(shown.map((order) => permalink(client, order)));
  // As the orders spell it ("abc-123" was typed, ABC-123 is the ticket).
  const typed = request.reference.toUpperCase();
  const reference =
    found.find((o) => o.customerReference?.toUpperCase() === typed)?.customerReference ??
    found.find((o) => o.externalDocumentNumber.toUpperCase() === typed)?.externalDocumentNumber ??
    request.reference;
  const message = orderStatusMessage(
    reference,
    shown.map((order, i) => ({ order, link: links[i] ?? null })),
    {
      customer: ctx.customer,
      now: ctx.now(),
      timeZone: ctx.timeZone,
      more: found.length > STATUS_ORDER_LIMIT,
      leftOut: hiddenNote,
    },
  );
  await respond({ response_type: "ephemeral", ...message });
}
