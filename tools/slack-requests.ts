/**
 * Requests exactly as Slack sends them to an app's Request URL: slash commands as form fields,
 * interactivity as a `payload=` form field holding JSON, Events API callbacks as JSON — each signed
 * with the app's signing secret (v0 scheme). Tests and the demo use these to drive a real Bolt
 * HTTP receiver through its real verification and parsing.
 *
 * Signing: https://docs.slack.dev/authentication/verifying-requests-from-slack
 */
import { createHmac } from "node:crypto";
import { type Dispatcher, request } from "undici";
import {
  type RawRequest,
  requestsOver,
  type SlackHttpResponse,
  type SlackPayload,
  type SlackRequests,
  slackPayloads,
} from "./slack-payloads.ts";

export type * from "./slack-payloads.ts";

export interface SlackSignatureHeaders {
  "x-slack-signature": string;
  "x-slack-request-timestamp": string;
}

/** `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{rawBody}` keyed with the signing secret. */
export function signSlackRequest(opts: {
  signingSecret: string;
  timestampSec: number;
  body: string;
}): SlackSignatureHeaders {
  const digest = createHmac("sha256", opts.signingSecret)
    .update(`v0:${opts.timestampSec}:${opts.body}`)
    .digest("hex");
  return { "x-slack-signature": `v0=${digest}`, "x-slack-request-timestamp": String(opts.timestampSec) };
}

export interface SlackRequestsOptions {
  /** The app's Request URL, e.g. `http://127.0.0.1:3000/slack/events`. */
  url: string;
  signingSecret: string;
  teamId: string;
  teamDomain?: string;
  appId: string;
  /** Millisecond clock used for the signature timestamp and `action_ts`/`event_time`. */
  clock?: () => number;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
}

export function createSlackRequests(opts: SlackRequestsOptions): SlackRequests {
  const clock = opts.clock ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? 10_000;

  async function send(raw: RawRequest): Promise<SlackHttpResponse> {
    const timestampSec = raw.timestampSec ?? Math.floor(clock() / 1000);
    const signed = signSlackRequest({ signingSecret: opts.signingSecret, timestampSec, body: raw.body });
    const res = await request(opts.url, {
      method: "POST",
      body: raw.body,
      headers: {
        "content-type": raw.contentType,
        ...signed,
        ...(raw.signature !== undefined ? { "x-slack-signature": raw.signature } : {}),
        ...raw.headers,
      },
      signal: AbortSignal.timeout(timeoutMs),
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    });
    const text = await res.body.text();
    const contentType = String(res.headers["content-type"] ?? "");
    let body: unknown;
    if (text.length > 0 && contentType.includes("json")) body = JSON.parse(text);
    return { status: res.statusCode, headers: res.headers, text, body };
  }

  return requestsOver(slackPayloads(opts), (payload) => send(encodeForHttp(payload)), send);
}

/** How Slack puts a payload on the wire to a Request URL. */
export function encodeForHttp(payload: SlackPayload): RawRequest {
  const FORM = "application/x-www-form-urlencoded";
  switch (payload.kind) {
    case "slash_command":
      return { body: new URLSearchParams(payload.fields).toString(), contentType: FORM };
    case "interactive":
      return {
        body: new URLSearchParams({ payload: JSON.stringify(payload.payload) }).toString(),
        contentType: FORM,
      };
    case "event":
      return {
        body: JSON.stringify(payload.body),
        contentType: "application/json",
        ...(payload.retry
          ? {
              headers: {
                "x-slack-retry-num": String(payload.retry.num),
                "x-slack-retry-reason": payload.retry.reason,
              },
            }
          : {}),
      };
  }
}
