/**
 * Answering before the request's body has arrived — a refusal before or while reading it (too large, the wrong
 * content type, no such route) — and ending the response at once makes Node close a `Connection: close`
 * connection with the client's bytes still unread: the client, still sending, gets a reset instead of our
 * answer. So the answer is written at once and the response ends only once the rest of the body has arrived
 * (read and discarded), or after `MAX_DISCARD_BYTES` (then the connection may be cut). The server's request
 * timeout bounds how long a client may take to send it.
 */
import type { ServerResponse } from "node:http";

/** Beyond this much more body, the connection is closed rather than read to the end. */
export const MAX_DISCARD_BYTES = 64 * 1024 * 1024;

/** Writes `chunk` (the whole answer: headers must be written already) and ends once the request body is in. */
export function endAfterRequestBody(
  res: ServerResponse,
  chunk?: string,
  maxDiscardBytes: number = MAX_DISCARD_BYTES,
): void {
  const req = res.req;
  if (!req || req.complete || req.destroyed) {
    res.end(chunk);
    return;
  }
  if (chunk) res.write(chunk);
  let discarded = 0;
  const finish = () => {
    req.off("data", onData);
    req.off("end", finish);
    req.off("close", finish);
    if (!res.writableEnded) res.end();
  };
  const onData = (data: Buffer) => {
    discarded += data.length;
    if (discarded > maxDiscardBytes) finish();
  };
  req.on("data", onData);
  req.once("end", finish);
  req.once("close", finish);
  req.resume();
}
