/** Reading the supplier's response body with a size cap, so that a wrong endpoint cannot fill our memory. */
import type { Dispatcher } from "undici";
import { ProtocolError } from "./errors.ts";
import type { ResponseHeaders } from "./outcome.ts";

function tooLarge(status: number, limit: number): ProtocolError {
  return new ProtocolError(
    `The supplier's response (HTTP ${status}) exceeds ${limit} bytes; it is not the API's envelope.`,
    { httpStatus: status },
  );
}

/** The declared body length, or null when the response does not say (chunked) or says something odd. */
function contentLength(headers: ResponseHeaders): number | null {
  const value = headers["content-length"];
  if (typeof value !== "string" || !/^\d{1,15}$/.test(value)) return null;
  return Number(value);
}

/**
 * Reads the body, refusing more than `limit` bytes (and releasing the connection either way). A body that
 * announces its length (the API's small envelope) is read in one go — undici fails it if fewer or more bytes
 * come; one of unknown length is counted as it streams. The attempt's deadline destroys the body, which ends
 * either read with the deadline's error.
 */
export async function readCapped(response: Dispatcher.ResponseData, limit: number): Promise<string> {
  const { body, statusCode: status } = response;
  const declared = contentLength(response.headers);
  if (declared !== null) {
    if (declared > limit) {
      body.destroy();
      throw tooLarge(status, limit);
    }
    return Buffer.from(await body.arrayBuffer()).toString("utf8");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      body.destroy();
      throw tooLarge(status, limit);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
