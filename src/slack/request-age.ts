/**
 * Slack signs `v0:<timestamp>:<body>` and asks apps to refuse a request stamped more than five minutes away
 * from now, in either direction, so a captured request cannot be replayed. The receiver (receiver.ts) refuses
 * both with a bare 401; this answers one from the future first, and says why: a stamp ahead of our clock
 * means a clock is off (this server's, usually), which an operator can fix.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";

const TOLERANCE_SECONDS = 5 * 60;

export function refuseFutureRequests(
  listener: RequestListener,
  options: { now?: () => number } = {},
): RequestListener {
  const now = options.now ?? Date.now;
  return (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers["x-slack-request-timestamp"];
    const stamp = Number(Array.isArray(header) ? header[0] : header);
    if (Number.isFinite(stamp) && stamp - now() / 1000 > TOLERANCE_SECONDS) {
      req.resume();
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          ok: false,
          error: "request_from_the_future",
          message:
            "x-slack-request-timestamp is more than 5 minutes ahead of this server's clock; check the clocks (NTP).",
        }),
      );
      return;
    }
    listener(req, res);
  };
}
