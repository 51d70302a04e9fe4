/**
 * Reads a request body as raw bytes (the signature covers the exact bytes), refusing more than `limit`:
 * up front when `content-length` says so, and while streaming when it does not (chunked) or lies.
 */
import type { IncomingMessage } from "node:http";
import { WebhookRejectedError } from "./errors.ts";

function tooLarge(limit: number): WebhookRejectedError {
  return new WebhookRejectedError(
    "payload_too_large",
    `The body is larger than ${limit} bytes; a webhook event must fit in ${Math.floor(limit / 1024)} KiB.`,
  );
}

/** Throws `payload_too_large` when the declared length is over the limit (before reading anything). */
export function checkDeclaredLength(req: IncomingMessage, limit: number): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
}

export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // Stop buffering; the rest is discarded as it arrives.
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onAborted = () => {
      cleanup();
      reject(new Error("the client aborted the request"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onAborted);
  });
}

/**
 * Deeper than any real event: a validly signed body nested thousands of levels deep would otherwise overflow
 * the stack when stored, be answered 503, and be redelivered forever.
 */
export const MAX_NESTING = 64;

/** Depth of a parsed JSON value, counted iteratively and given up past `limit`. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== "object") continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) stack.push([child, level]);
  }
  return deepest;
}
