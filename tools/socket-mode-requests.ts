/**
 * `SlackRequests` in Socket Mode: each payload goes to the app as Slack's envelope over the fake Slack's
 * WebSocket (`slash_commands`, `interactive`, `events_api`), and the answer is the app's ack — `status` 200
 * and the ack's payload as `body`. Tests, the demo and the reliability suite drive a Socket Mode app with it
 * exactly as they drive an HTTP one with `createSlackRequests`. When Slack cannot deliver (no connection open,
 * no ack within 3 s, the connection dropped first), the call throws, as an HTTP request to a dead app does.
 */
import type { FakeSocketMode } from "./fake-slack/socket/records.ts";
import {
  type PayloadOptions,
  type RawRequest,
  requestsOver,
  type SlackHttpResponse,
  type SlackPayload,
  type SlackRequests,
  slackPayloads,
} from "./slack-payloads.ts";

export interface SocketModeRequestsOptions extends PayloadOptions {
  socketMode: FakeSocketMode;
}

/** A raw body as Slack would have sent it over HTTP, turned back into the payload it carries. */
export function payloadOfRaw(raw: RawRequest): SlackPayload {
  if (raw.contentType.startsWith("application/json")) {
    return { kind: "event", body: JSON.parse(raw.body) as Record<string, unknown> };
  }
  const fields = Object.fromEntries(new URLSearchParams(raw.body));
  return typeof fields.payload === "string"
    ? { kind: "interactive", payload: JSON.parse(fields.payload) as Record<string, unknown> }
    : { kind: "slash_command", fields };
}

export function createSocketModeRequests(opts: SocketModeRequestsOptions): SlackRequests {
  async function deliver(payload: SlackPayload): Promise<SlackHttpResponse> {
    let delivered: Awaited<ReturnType<FakeSocketMode["deliver"]>>;
    if (payload.kind === "slash_command") {
      delivered = await opts.socketMode.deliver("slash_commands", payload.fields);
    } else if (payload.kind === "interactive") {
      delivered = await opts.socketMode.deliver("interactive", payload.payload);
    } else {
      // Socket Mode has no Request URL, so nothing to verify.
      if (payload.body.type === "url_verification") throw new Error("Socket Mode has no url_verification");
      const retry = payload.retry ? { attempt: payload.retry.num, reason: payload.retry.reason } : undefined;
      delivered = await opts.socketMode.deliver("events_api", payload.body, retry);
    }
    const body = delivered.payload;
    return { status: 200, headers: {}, text: body ? JSON.stringify(body) : "", body };
  }
  // A signature or timestamp override means nothing here: the connection, not the body, is authenticated.
  return requestsOver(slackPayloads(opts), deliver, (raw) => deliver(payloadOfRaw(raw)));
}
