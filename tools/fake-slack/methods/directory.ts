import type { FakeUser, FakeWorkspace } from "../state.ts";
import { channelFor, channelJson } from "./channels.ts";
import { type Handler, requireScope, SlackApiError } from "./context.ts";

/** auth.test answers for the bot token and for workflow (function) tokens alike. */
export const authTest: Handler = (ctx) => ({
  url: `https://${ctx.ws.opts.teamDomain}.slack.com/`,
  team: ctx.ws.opts.teamDomain,
  user: "order-desk",
  team_id: ctx.ws.opts.teamId,
  user_id: ctx.ws.opts.botUserId,
  bot_id: ctx.ws.opts.botId,
  app_id: ctx.ws.opts.appId,
  is_enterprise_install: false,
});

function userJson(ws: FakeWorkspace, u: FakeUser, withEmail: boolean) {
  return {
    id: u.id,
    team_id: ws.opts.teamId,
    name: u.name,
    real_name: u.realName,
    deleted: false,
    is_bot: u.isBot ?? false,
    tz: u.tz ?? "Europe/Amsterdam",
    profile: {
      real_name: u.realName,
      display_name: u.name,
      first_name: u.firstName ?? u.realName.split(" ")[0] ?? "",
      last_name: u.lastName ?? u.realName.split(" ").slice(1).join(" "),
      phone: u.phone ?? "",
      // Slack only includes e-mail addresses for tokens with users:read.email.
      ...(withEmail && u.email ? { email: u.email } : {}),
    },
  };
}

export const usersInfo: Handler = (ctx) => {
  requireScope(ctx, "users:read");
  const user = ctx.ws.users.get(ctx.args.string("user"));
  if (!user) throw new SlackApiError("user_not_found");
  return { user: userJson(ctx.ws, user, ctx.scopes.has("users:read.email")) };
};

export const usergroupsUsersList: Handler = (ctx) => {
  requireScope(ctx, "usergroups:read");
  const group = ctx.ws.usergroups.get(ctx.args.string("usergroup"));
  if (!group) throw new SlackApiError("no_such_subteam");
  return { users: [...group.users] };
};

export const conversationsInfo: Handler = (ctx) => {
  const channel = channelFor(ctx.ws, ctx.args.string("channel"), { write: false });
  if (channel.isIm) requireScope(ctx, "im:read");
  else if (channel.isPrivate) requireScope(ctx, "groups:read");
  else requireScope(ctx, "channels:read");
  return { channel: channelJson(ctx.ws, channel) };
};

export const conversationsJoin: Handler = (ctx) => {
  requireScope(ctx, "channels:join");
  const channel = channelFor(ctx.ws, ctx.args.string("channel"), { write: false });
  if (channel.isPrivate || channel.isIm) throw new SlackApiError("method_not_supported_for_channel_type");
  if (channel.isArchived) throw new SlackApiError("is_archived");
  channel.botIsMember = true;
  return { channel: channelJson(ctx.ws, channel) };
};

export const conversationsOpen: Handler = (ctx) => {
  requireScope(ctx, "im:write");
  const users = ctx.args.string("users").split(",");
  const [user] = users;
  if (users.length !== 1 || !user) throw new SlackApiError("not_enough_users");
  if (!ctx.ws.users.has(user)) throw new SlackApiError("user_not_found");
  return { channel: { id: ctx.ws.imWith(user).id } };
};

/**
 * `conversations.members`: the people in a channel (the bot too, when it is a member), as a bot token sees them: a
 * private channel the bot is not in does not exist for it; cursor pagination (the cursor is the offset, base64).
 */
export const conversationsMembers: Handler = (ctx) => {
  const channel = channelFor(ctx.ws, ctx.args.string("channel"), { write: false });
  if (channel.isIm) requireScope(ctx, "im:read");
  else if (channel.isPrivate) requireScope(ctx, "groups:read");
  else requireScope(ctx, "channels:read");
  const all = [
    ...(channel.isIm && channel.user ? [channel.user] : channel.members),
    ...(channel.botIsMember ? [ctx.ws.opts.botUserId] : []),
  ];
  const rawLimit = ctx.args.optString("limit");
  const limit = rawLimit === undefined ? 100 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1) throw new SlackApiError("invalid_limit");
  const cursor = ctx.args.optString("cursor");
  const offset = cursor === undefined ? 0 : Number(Buffer.from(cursor, "base64").toString("utf8"));
  if (!Number.isInteger(offset) || offset < 0) throw new SlackApiError("invalid_cursor");
  const size = Math.min(limit, 1000);
  const next = offset + size < all.length ? Buffer.from(String(offset + size)).toString("base64") : "";
  return { members: all.slice(offset, offset + size), response_metadata: { next_cursor: next } };
};
