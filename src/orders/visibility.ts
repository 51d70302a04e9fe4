/**
 * Who may see an order in `/order status`: those who can see where it was posted. Being allowed to order with its
 * profile is not enough (one profile may post in a public and a private channel): the order shows to the members
 * of its channel, its requester (and whoever resubmitted it), and Order Desk's admins. The rest are counted, not
 * shown, so the asker knows something was left out.
 */
import type { Order } from "./model/order.ts";

/** Channel membership as Slack reports it (conversations.members). */
export interface ChannelMembership {
  /** Whether `userId` is in `channelId`; null when Slack could not say (the order is then left out). */
  isMember(channelId: string, userId: string): Promise<boolean | null>;
}

export interface Viewer {
  userId: string;
  /** The channel the question was asked in: its orders are visible to the asker without asking Slack. */
  askedIn: string;
  /** Asked only when an order would otherwise be left out. */
  isAdmin(): Promise<boolean>;
}

/** A channel (public `C…` or private `G…`), not a DM: only channels have members to ask about. */
const CHANNEL = /^[CG][A-Z0-9]+$/;

export async function visibleOrders(
  orders: readonly Order[],
  viewer: Viewer,
  channels: ChannelMembership,
): Promise<{ shown: Order[]; leftOut: number }> {
  const memberOf = new Map<string, Promise<boolean | null>>();
  const shown: Order[] = [];
  const hidden: Order[] = [];
  for (const order of orders) {
    const channel = order.slackChannelId;
    let visible =
      order.requestedBy === viewer.userId ||
      order.resubmittedBy === viewer.userId ||
      (channel !== null && channel === viewer.askedIn);
    if (!visible && channel !== null && CHANNEL.test(channel)) {
      let asked = memberOf.get(channel);
      if (!asked) {
        asked = channels.isMember(channel, viewer.userId);
        memberOf.set(channel, asked);
      }
      visible = (await asked) === true;
    }
    (visible ? shown : hidden).push(order);
  }
  if (hidden.length > 0 && (await viewer.isAdmin())) return { shown: [...orders], leftOut: 0 };
  return { shown, leftOut: hidden.length };
}
