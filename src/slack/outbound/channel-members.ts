/**
 * The domain's `ChannelMembership` port over `conversations.members` (channels:read, groups:read): pages through
 * a channel's members until the user is found. A private channel the bot left, or Slack not answering, is "cannot
 * say" (null), and the order stays hidden.
 */
import type { Logger } from "pino";
import type { ChannelMembership } from "../../orders/visibility.ts";
import type { WebClient } from "./client.ts";

/** Members read per page, and the most pages read for one channel (100,000 members). */
const PAGE = 1000;
const MAX_PAGES = 100;

export function channelMembershipFromClient(client: WebClient, logger?: Logger): ChannelMembership {
  return {
    async isMember(channelId, userId) {
      try {
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          const res = await client.conversations.members({
            channel: channelId,
            limit: PAGE,
            ...(cursor ? { cursor } : {}),
          });
          if (res.members?.includes(userId)) return true;
          cursor = res.response_metadata?.next_cursor || undefined;
          if (!cursor) return false;
        }
        return null;
      } catch (error) {
        logger?.warn({ err: error, channelId }, "could not read a channel's members; its orders stay hidden");
        return null;
      }
    },
  };
}
