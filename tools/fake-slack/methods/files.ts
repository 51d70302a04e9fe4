/**
 * File uploads as `files.uploadV2` does them on Slack: `files.getUploadURLExternal` (filename, length) hands out
 * an upload URL and a file id; the bytes are POSTed to the URL (served by the fake: `POST /upload/<id>`);
 * `files.completeUploadExternal` checks that the bytes arrived (and as many as announced) and shares the file
 * in `channel_id`, as a message showing it.
 */
import { slackId } from "../ids.ts";
import type { FakeWorkspace } from "../state.ts";
import { channelFor } from "./channels.ts";
import { type Handler, requireScope, SlackApiError } from "./context.ts";

export const getUploadURLExternal: Handler = (ctx) => {
  requireScope(ctx, "files:write");
  const filename = ctx.args.string("filename");
  const length = Number(ctx.args.string("length"));
  if (!Number.isInteger(length) || length <= 0) throw new SlackApiError("invalid_arguments");
  const id = slackId("F", 10);
  ctx.ws.files.set(id, {
    id,
    filename,
    length,
    content: undefined,
    title: undefined,
    shares: [],
    completed: false,
  });
  return { upload_url: `${ctx.ws.baseUrl}/upload/${id}`, file_id: id };
};

export const completeUploadExternal: Handler = (ctx) => {
  requireScope(ctx, "files:write");
  const listed = ctx.args.json("files");
  if (!Array.isArray(listed) || listed.length === 0) throw new SlackApiError("invalid_arguments");
  const files = listed.map((entry) => {
    const { id, title } = (entry ?? {}) as { id?: unknown; title?: unknown };
    const file = typeof id === "string" ? ctx.ws.files.get(id) : undefined;
    if (!file || file.completed) throw new SlackApiError("file_not_found");
    // Slack refuses a file whose bytes never arrived, or not as many as announced.
    if (!file.content || file.content.length !== file.length) throw new SlackApiError("file_upload_failed");
    return { file, title: typeof title === "string" ? title : undefined };
  });
  const channelId = ctx.args.optString("channel_id");
  const channel = channelId ? channelFor(ctx.ws, channelId, { write: true }) : undefined;
  const comment = ctx.args.optString("initial_comment");
  const out = [];
  for (const { file, title } of files) {
    file.completed = true;
    file.title = title ?? file.filename;
    if (channel) {
      const message = ctx.ws.addMessage({
        channel: channel.id,
        user: ctx.ws.opts.botUserId,
        isBot: true,
        text: `${comment ? `${comment}\n` : ""}📎 ${file.filename} (${file.length} bytes)`,
        threadTs: ctx.args.optString("thread_ts"),
      });
      file.shares.push({ channel: channel.id, ts: message.ts });
    }
    out.push({ id: file.id, title: file.title });
  }
  return { files: out };
};

/**
 * `POST /upload/<id>`: the bytes of an announced file, sent raw (as Order Desk streams them) or as
 * multipart/form-data (as the SDK's `filesUploadV2` sends them: one part holding the file). Answers like Slack's
 * upload endpoint: 200 "OK - <n>".
 */
export function receiveUpload(
  ws: FakeWorkspace,
  id: string,
  contentType: string,
  body: Buffer,
): { status: number; text: string } {
  const file = ws.files.get(id);
  if (!file || file.completed) return { status: 404, text: "file not found" };
  const boundary = /^multipart\/form-data;.*boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  const bytes = boundary ? firstPart(body, boundary) : body;
  if (!bytes) return { status: 400, text: "no file in the form" };
  file.content = bytes;
  return { status: 200, text: `OK - ${bytes.length}` };
}

/** The content of the form's first part that carries a file name (else its first part). */
function firstPart(body: Buffer, boundary: string): Buffer | undefined {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next === -1) break;
    parts.push(body.subarray(at + delimiter.length + 2, next - 2)); // skip CRLF after the delimiter and before the next
    at = next;
  }
  const parsed = parts.map((part) => {
    const split = part.indexOf("\r\n\r\n");
    return { headers: part.subarray(0, split).toString("utf8"), content: part.subarray(split + 4) };
  });
  return (parsed.find((p) => /filename=/i.test(p.headers)) ?? parsed[0])?.content;
}
