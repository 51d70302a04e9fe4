/**
 * Uploads a file from disk to a Slack conversation with the flow `files.uploadV2` stands for:
 * `files.getUploadURLExternal` (name and length) → the bytes to the upload URL → `files.completeUploadExternal`
 * (share it in the conversation). The SDK's own `filesUploadV2` reads the whole file into memory first (it
 * needs the length); this streams it from disk instead, so a month's export of many thousand orders is never
 * held in memory. Every call has a timeout; nothing here is retried (a failed upload is told to the person).
 * Failures are `SlackCallError`s like every other Web API call's (method `files.uploadV2` for the bytes).
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { request } from "undici";
import type { WebClient } from "./client.ts";
import { SlackCallError, toSlackCallError } from "./errors.ts";

export interface UploadFileOptions {
  client: WebClient;
  path: string;
  filename: string;
  title: string;
  /**
   * The conversation to share it in (a channel id, or a DM's `D…` id), asked for once the bytes are at Slack:
   * a message that announces the file is posted only when there is a file to follow it.
   */
  channelId: string | (() => Promise<string>);
  threadTs?: string;
  /** For sending the bytes (the Web API calls use the client's own timeout). Default 60 s. */
  timeoutMs?: number;
}

export async function uploadFile(options: UploadFileOptions): Promise<{ fileId: string }> {
  const { client } = options;
  const { size } = await stat(options.path);
  const asked = client.files.getUploadURLExternal({ filename: options.filename, length: size });
  const target = await asked.catch((error: unknown) => {
    throw toSlackCallError("files.getUploadURLExternal", error);
  });
  const uploadUrl = target.upload_url;
  const fileId = target.file_id;
  if (!uploadUrl || !fileId) {
    throw new SlackCallError("SLACK_BAD_ANSWER", "files.getUploadURLExternal", "Slack gave no upload URL");
  }
  const timeoutMs = options.timeoutMs ?? 60_000;
  let status: number;
  try {
    const answer = await request(uploadUrl, {
      method: "POST",
      body: createReadStream(options.path),
      headers: { "content-type": "application/octet-stream", "content-length": String(size) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = answer.statusCode;
    await answer.body.dump();
  } catch (error) {
    throw new SlackCallError("SLACK_UNREACHABLE", "files.uploadV2", "sending the file to Slack failed", {
      networkError: error,
      cause: error,
    });
  }
  if (status !== 200) {
    throw new SlackCallError(
      "SLACK_HTTP_ERROR",
      "files.uploadV2",
      `Slack refused the file (HTTP ${status})`,
      {
        statusCode: status,
      },
    );
  }
  const channelId = typeof options.channelId === "string" ? options.channelId : await options.channelId();
  const shared = client.files.completeUploadExternal({
    files: [{ id: fileId, title: options.title }],
    channel_id: channelId,
    ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
  });
  await shared.catch((error: unknown) => {
    throw toSlackCallError("files.completeUploadExternal", error);
  });
  return { fileId };
}
