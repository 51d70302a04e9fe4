import type { FakeChannel, FakeWorkspace } from "../state.ts";
import { SlackApiError } from "./context.ts";

/**
 * Resolves a `channel` argument the way Slack does for a bot token: a user id means the app's DM with
 * that user; a private channel the bot is not in does not exist for it; an archived channel refuses
 * writes; a public channel the bot has not joined answers `not_in_channel` (we do not take
 * `chat:write.public`, so this path matters).
 */
export function channelFor(ws: FakeWorkspace, id: string, opts: { write: boolean }): FakeChannel {
  if (/^[UW][A-Z0-9]+$/.test(id)) {
    if (!ws.users.has(id)) throw new SlackApiError("channel_not_found");
    return ws.imWith(id);
  }
  const channel = ws.channels.get(id);
  if (!channel || (channel.isPrivate && !channel.botIsMember)) throw new SlackApiError("channel_not_found");
  if (!opts.write) return channel;
  if (channel.isArchived) throw new SlackApiError("is_archived");
  if (!channel.botIsMember) throw new SlackApiError("not_in_channel");
  return channel;
}

export function channelJson(ws: FakeWorkspace, c: FakeChannel): Record<string, unknown> {
  return {
    id: c.id,
    name: c.isIm ? undefined : c.name,
    is_channel: !c.isIm && !c.isPrivate,
    is_group: !c.isIm && c.isPrivate,
    is_im: c.isIm,
    is_private: c.isPrivate,
    is_archived: c.isArchived,
    is_member: c.botIsMember,
    user: c.user,
    context_team_id: ws.opts.teamId,
    num_members: c.members.size + (c.botIsMember ? 1 : 0),
  };
}
