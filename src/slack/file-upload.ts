/**
 * Uploads a file from disk to a Slack conversation with the flow `files.uploadV2` stands for:
 * `files.getUploadURLExternal` (name and length) → the bytes to the upload URL → `files.completeUploadExternal`
 * (share it in the conversation). The SDK's own `filesUploadV2` reads the whole file into memory first (it
 * needs the length); this streams it from disk instead, so a month's export of many thousand orders is never
 * held in memory. Every call has a timeout; nothing here is retried (a failed upload is told to the person).
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { webApi } from "@slack/bolt";
import { request } from "undici";

export interface UploadFileOptions {
  client: webApi.WebClient;
  path: string;
  filename: string;
  title: string;
  /** The conversation to share it in: a channel id, or a DM's `D…` id. */
  channelId: string;
  threadTs?: string;
  /** For sending the bytes (the Web API calls use the client's own timeout). Default 60 s. */
  timeoutMs?: number;
}

/** The upload URL refused the bytes, or did not answer in time. */
export class FileUploadError extends Error {
  readonly code = "FILE_UPLOAD_FAILED";
  override readonly cause: unknown;
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = "FileUploadError";
    this.cause = options.cause;
  }
}

export async function uploadFile(options: UploadFileOptions): Promise<{ fileId: string }> {
  const { client } = options;
  const { size } = await stat(options.path);
  const target = await client.files.getUploadURLExternal({ filename: options.filename, length: size });
  const uploadUrl = target.upload_url;
  const fileId = target.file_id;
  if (!uploadUrl || !fileId) throw new FileUploadError("Slack gave no upload URL for the file.");
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
    throw new FileUploadError(`Sending the file to Slack failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (status !== 200) throw new FileUploadError(`Slack refused the file's bytes (HTTP ${status}).`);
  await client.files.completeUploadExternal({
    files: [{ id: fileId, title: options.title }],
    channel_id: options.channelId,
    ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
  });
  return { fileId };
}
