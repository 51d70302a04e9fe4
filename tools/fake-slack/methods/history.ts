/**
 * `conversations.replies` and `conversations.history` as a bot token sees them: the history scope of the
 * conversation's kind, cursor pagination, newest first for history and oldest first for a thread, and message
 * metadata only with `include_all_metadata` (Slack leaves it out otherwise). Slack's budget for apps outside its
 * Marketplace (one call a minute, 15 messages) is enforced by the server when asked (faults.ts `LimitedHistory`).
 */
import type { FakeChannel, FakeMessage, FakeWorkspace, Json } from "../state.ts";
import { channelFor } from "./channels.ts";
import { messageJson } from "./chat.ts";
import { type Args, type Handler, type MethodContext, requireScope, SlackApiError } from "./context.ts";

function readable(ctx: MethodContext): FakeChannel {
  const channel = channelFor(ctx.ws, ctx.args.string("channel"), { write: false });
  if (channel.isIm) requireScope(ctx, "im:history");
  else if (channel.isPrivate) requireScope(ctx, "groups:history");
  else requireScope(ctx, "channels:history");
  if (!channel.botIsMember && !channel.isIm) throw new SlackApiError("not_in_channel");
  return channel;
}

function limitOf(args: Args, fallback: number): number {
  const raw = args.optString("limit");
  const limit = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(limit) || limit < 1) throw new SlackApiError("invalid_limit");
  return Math.min(limit, 1000);
}

/** Cursors are opaque to callers; ours is the offset, base64 like Slack's. */
function page(args: Args, all: FakeMessage[], limit: number) {
  const cursor = args.optString("cursor");
  const offset = cursor === undefined ? 0 : Number(Buffer.from(cursor, "base64").toString("utf8"));
  if (!Number.isInteger(offset) || offset < 0) throw new SlackApiError("invalid_cursor");
  const messages = all.slice(offset, offset + limit);
  const next = offset + limit < all.length ? Buffer.from(String(offset + limit)).toString("base64") : "";
  return { messages, has_more: next !== "", response_metadata: { next_cursor: next } };
}

function withMetadata(ws: FakeWorkspace, m: FakeMessage, include: boolean): Json {
  return { ...messageJson(ws, m), ...(include && m.metadata !== undefined ? { metadata: m.metadata } : {}) };
}

const tsNumber = (ts: string): number => Number(ts);

/** `oldest`/`latest`/`inclusive` as Slack applies them. */
function timeRange(args: Args): (m: FakeMessage) => boolean {
  const oldest = tsNumber(args.optString("oldest") ?? "0");
  const latest = tsNumber(args.optString("latest") ?? String(Number.MAX_SAFE_INTEGER));
  const inclusive = args.bool("inclusive");
  return (m) => {
    const at = tsNumber(m.ts);
    return inclusive ? at >= oldest && at <= latest : at > oldest && at < latest;
  };
}

export const conversationsReplies: Handler = (ctx) => {
  const channel = readable(ctx);
  const parent = ctx.ws.findMessage(channel.id, ctx.args.string("ts"));
  if (!parent) throw new SlackApiError("thread_not_found");
  // The parent comes first whatever the range; the replies within `oldest`…`latest` follow, oldest first.
  const inRange = timeRange(ctx.args);
  const replies = parent.replies.flatMap((ts) => ctx.ws.findMessage(channel.id, ts) ?? []).filter(inRange);
  const thread = [parent, ...replies];
  const result = page(ctx.args, thread, limitOf(ctx.args, 1000));
  const include = ctx.args.bool("include_all_metadata");
  return { ...result, messages: result.messages.map((m) => withMetadata(ctx.ws, m, include)) };
};

export const conversationsHistory: Handler = (ctx) => {
  const channel = readable(ctx);
  const inRange = timeRange(ctx.args);
  // Top-level messages and replies broadcast to the channel, newest first.
  const all = (ctx.ws.messages.get(channel.id) ?? [])
    .filter((m) => (m.threadTs === undefined || m.replyBroadcast) && inRange(m))
    .reverse();
  const result = page(ctx.args, all, limitOf(ctx.args, 100));
  const include = ctx.args.bool("include_all_metadata");
  return { ...result, messages: result.messages.map((m) => withMetadata(ctx.ws, m, include)) };
};
