import { formatProblems, LIMITS, validateBlocks } from "../blocks.ts";
import type { FakeMessage, FakeWorkspace, Json } from "../state.ts";
import { channelFor } from "./channels.ts";
import { type Args, type Handler, type MethodContext, requireScope, SlackApiError } from "./context.ts";

function content(
  args: Args,
  opts: { requireSome: boolean },
): { text: string | undefined; blocks: unknown[] | undefined } {
  const text = args.optString("text");
  const blocks = args.has("blocks") ? args.json("blocks") : undefined;
  const attachments = args.has("attachments") ? args.json("attachments") : undefined;
  if (opts.requireSome && text === undefined && blocks === undefined && attachments === undefined) {
    throw new SlackApiError("no_text");
  }
  if (text !== undefined && text.length > LIMITS.messageText) throw new SlackApiError("msg_too_long");
  if (blocks !== undefined) {
    const problems = validateBlocks(blocks, "message", "/blocks");
    if (problems.length > 0) {
      const messages = formatProblems(problems);
      throw new SlackApiError("invalid_blocks", {
        errors: messages.map((m) => m.replace(/^\[ERROR\] /, "")),
        response_metadata: { messages },
      });
    }
  }
  return { text, blocks: blocks as unknown[] | undefined };
}

export function messageJson(ws: FakeWorkspace, m: FakeMessage): Json {
  const latest = m.versions[m.versions.length - 1];
  return {
    type: "message",
    ...(m.isBot ? { bot_id: ws.opts.botId, app_id: ws.opts.appId } : {}),
    user: m.user,
    text: latest?.text ?? m.text,
    ts: m.ts,
    team: ws.opts.teamId,
    ...(latest?.blocks ? { blocks: latest.blocks } : {}),
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
    ...(m.replies.length > 0 ? { thread_ts: m.ts, reply_count: m.replies.length } : {}),
    ...(m.versions.length > 1
      ? { edited: { user: m.user, ts: `${Math.floor((latest?.at ?? 0) / 1000)}.000000` } }
      : {}),
  };
}

function threadParent(ctx: MethodContext, channel: string): string | undefined {
  const threadTs = ctx.args.optString("thread_ts");
  if (threadTs === undefined) return undefined;
  const parent = ctx.ws.findMessage(channel, threadTs);
  // Slack accepts an unknown thread_ts and files the reply where nobody sees it; we refuse it so a
  // wrong ts shows up as a test failure rather than as a silently lost update.
  if (!parent || parent.threadTs !== undefined) {
    throw new SlackApiError("invalid_thread_ts", {
      response_metadata: {
        messages: ["[ERROR] thread_ts must be the ts of a top-level message in this channel"],
      },
    });
  }
  return threadTs;
}

export const postMessage: Handler = (ctx) => {
  requireScope(ctx, "chat:write");
  const channel = channelFor(ctx.ws, ctx.args.string("channel"), { write: true });
  const threadTs = threadParent(ctx, channel.id);
  const { text, blocks } = content(ctx.args, { requireSome: true });
  const message = ctx.ws.addMessage({
    channel: channel.id,
    user: ctx.ws.opts.botUserId,
    isBot: true,
    text: text ?? "",
    blocks,
    threadTs,
    metadata: ctx.args.has("metadata") ? ctx.args.json("metadata") : undefined,
    replyBroadcast: ctx.args.bool("reply_broadcast"),
  });
  return { channel: channel.id, ts: message.ts, message: messageJson(ctx.ws, message) };
};

export const update: Handler = (ctx) => {
  requireScope(ctx, "chat:write");
  const channel = channelFor(ctx.ws, ctx.args.string("channel"), { write: true });
  const message = ctx.ws.findMessage(channel.id, ctx.args.string("ts"));
  if (!message) throw new SlackApiError("message_not_found");
  if (!message.isBot) throw new SlackApiError("cant_update_message");
  const { text, blocks } = content(ctx.args, { requireSome: true });
  message.versions.push({
    at: ctx.now,
    // Like Slack, an update replaces the message: omitted blocks are removed, omitted text is empty.
    text: text ?? "",
    blocks,
  });
  const json = messageJson(ctx.ws, message);
  return { channel: channel.id, ts: message.ts, text: json.text, message: json };
};

export const postEphemeral: Handler = (ctx) => {
  requireScope(ctx, "chat:write");
  const channel = channelFor(ctx.ws, ctx.args.string("channel"), { write: true });
  const user = ctx.args.string("user");
  if (!ctx.ws.users.has(user)) throw new SlackApiError("user_not_found");
  if (!channel.isIm && !channel.members.has(user)) throw new SlackApiError("user_not_in_channel");
  const { text, blocks } = content(ctx.args, { requireSome: true });
  const messageTs = ctx.ws.nextTs();
  ctx.ws.ephemerals.push({
    channel: channel.id,
    user,
    threadTs: ctx.args.optString("thread_ts"),
    messageTs,
    text: text ?? "",
    blocks,
    at: ctx.now,
  });
  return { message_ts: messageTs };
};

export const getPermalink: Handler = (ctx) => {
  const channel = channelFor(ctx.ws, ctx.args.string("channel"), { write: false });
  const ts = ctx.args.string("message_ts");
  if (!ctx.ws.findMessage(channel.id, ts)) throw new SlackApiError("message_not_found");
  return { channel: channel.id, permalink: ctx.ws.permalink(channel.id, ts) };
};
