import { createHmac, randomBytes } from "node:crypto";
import { type Dispatcher, request } from "undici";

/**
 * Requests exactly as Slack sends them to an app's Request URL: slash commands as form fields,
 * interactivity as a `payload=` form field holding JSON, Events API callbacks as JSON — each signed
 * with the app's signing secret (v0 scheme). Tests and the demo use these to drive a real Bolt
 * HTTP receiver through its real verification and parsing.
 *
 * Signing: https://docs.slack.dev/authentication/verifying-requests-from-slack
 */

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

export interface SlackHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The raw response text ("" for an empty ack). */
  text: string;
  /** The parsed JSON body when the app answered JSON (e.g. `{ response_action: "errors", ... }`), else undefined. */
  body: unknown;
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

export interface Actor {
  userId: string;
  userName?: string;
}

export interface SlashCommandInput extends Actor {
  command: string;
  text?: string;
  channelId: string;
  channelName?: string;
  triggerId: string;
  responseUrl?: string;
}

export interface ViewSubmissionInput extends Actor {
  /** The view as Slack sends it (fake: `viewPayload(id)`), including `state.values`, `private_metadata`, `hash`. */
  view: Record<string, unknown>;
  triggerId: string;
}

export interface BlockAction {
  type: string;
  action_id: string;
  block_id: string;
  value?: string;
  selected_option?: unknown;
  text?: unknown;
}

export interface BlockActionsInput extends Actor {
  actions: BlockAction[];
  triggerId: string;
  /** The view the button is in (modal or home)… */
  view?: Record<string, unknown>;
  /** …or the message it is on. */
  message?: { channelId: string; channelName?: string; message: Record<string, unknown> };
  responseUrl?: string;
  /** When the interaction belongs to a workflow step: its execution and workflow token. */
  functionData?: { executionId: string; inputs: Record<string, unknown>; botAccessToken: string };
}

export interface MessageActionInput extends Actor {
  callbackId: string;
  channelId: string;
  channelName?: string;
  /** The message the shortcut was used on: at least `ts`, `text` and `user`. */
  message: { ts: string; text: string; user: string; thread_ts?: string; [k: string]: unknown };
  triggerId: string;
  responseUrl?: string;
}

export interface FunctionExecutedInput {
  callbackId: string;
  functionExecutionId: string;
  workflowExecutionId?: string;
  botAccessToken: string;
  inputs: Record<string, unknown>;
  title?: string;
  /** Slack re-delivers an event with the same `event_id` and retry headers when the app did not ack in 3 s. */
  eventId?: string;
  retry?: { num: number; reason: string };
  botUserId?: string;
}

export interface BlockSuggestionInput extends Actor {
  view: Record<string, unknown>;
  actionId: string;
  blockId: string;
  value: string;
}

export interface RawRequest {
  body: string;
  contentType: string;
  /** Override the signature (bad-signature tests) or the timestamp (stale tests). */
  signature?: string;
  timestampSec?: number;
  headers?: Record<string, string>;
}

const VERIFICATION_TOKEN = "fake-verification-token";

export interface SlackRequests {
  slashCommand(input: SlashCommandInput): Promise<SlackHttpResponse>;
  viewSubmission(input: ViewSubmissionInput): Promise<SlackHttpResponse>;
  viewClosed(input: Actor & { view: Record<string, unknown> }): Promise<SlackHttpResponse>;
  blockActions(input: BlockActionsInput): Promise<SlackHttpResponse>;
  blockSuggestion(input: BlockSuggestionInput): Promise<SlackHttpResponse>;
  messageAction(input: MessageActionInput): Promise<SlackHttpResponse>;
  functionExecuted(input: FunctionExecutedInput): Promise<SlackHttpResponse & { eventId: string }>;
  urlVerification(challenge: string): Promise<SlackHttpResponse>;
  /** Sends any body, signed unless `signature` overrides it. */
  send(raw: RawRequest): Promise<SlackHttpResponse>;
}

export function createSlackRequests(opts: SlackRequestsOptions): SlackRequests {
  const clock = opts.clock ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const team = { id: opts.teamId, domain: opts.teamDomain ?? "order-desk-demo" };
  const user = (a: Actor) => ({
    id: a.userId,
    username: a.userName ?? a.userId,
    name: a.userName ?? a.userId,
    team_id: opts.teamId,
  });
  const actionTs = () => (clock() / 1000).toFixed(6);

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

  const form = (fields: Record<string, string>) =>
    send({ body: new URLSearchParams(fields).toString(), contentType: "application/x-www-form-urlencoded" });
  const interactive = (payload: Record<string, unknown>) => form({ payload: JSON.stringify(payload) });
  const event = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    send({ body: JSON.stringify(body), contentType: "application/json", ...(headers ? { headers } : {}) });

  return {
    send,

    slashCommand: (i) =>
      form({
        token: VERIFICATION_TOKEN,
        team_id: opts.teamId,
        team_domain: team.domain,
        channel_id: i.channelId,
        channel_name: i.channelName ?? i.channelId,
        user_id: i.userId,
        user_name: i.userName ?? i.userId,
        command: i.command,
        text: i.text ?? "",
        api_app_id: opts.appId,
        is_enterprise_install: "false",
        response_url: i.responseUrl ?? "https://hooks.slack.com/commands/fake",
        trigger_id: i.triggerId,
      }),

    viewSubmission: (i) =>
      interactive({
        type: "view_submission",
        team,
        user: user(i),
        api_app_id: opts.appId,
        token: VERIFICATION_TOKEN,
        trigger_id: i.triggerId,
        view: i.view,
        response_urls: [],
        is_enterprise_install: false,
        enterprise: null,
      }),

    viewClosed: (i) =>
      interactive({
        type: "view_closed",
        team,
        user: user(i),
        api_app_id: opts.appId,
        token: VERIFICATION_TOKEN,
        view: i.view,
        is_cleared: false,
        is_enterprise_install: false,
        enterprise: null,
      }),

    blockActions: (i) => {
      const ts = actionTs();
      return interactive({
        type: "block_actions",
        team,
        user: user(i),
        api_app_id: opts.appId,
        token: VERIFICATION_TOKEN,
        trigger_id: i.triggerId,
        is_enterprise_install: false,
        enterprise: null,
        container: i.view
          ? { type: "view", view_id: i.view.id }
          : {
              type: "message",
              message_ts: i.message?.message.ts,
              channel_id: i.message?.channelId,
              is_ephemeral: false,
            },
        ...(i.view ? { view: i.view } : {}),
        ...(i.message
          ? {
              channel: { id: i.message.channelId, name: i.message.channelName ?? i.message.channelId },
              message: i.message.message,
              state: { values: {} },
            }
          : {}),
        ...(i.responseUrl ? { response_url: i.responseUrl } : {}),
        ...(i.functionData
          ? {
              function_data: { execution_id: i.functionData.executionId, inputs: i.functionData.inputs },
              bot_access_token: i.functionData.botAccessToken,
            }
          : {}),
        actions: i.actions.map((a) => ({ ...a, action_ts: ts })),
      });
    },

    blockSuggestion: (i) =>
      interactive({
        type: "block_suggestion",
        team,
        user: user(i),
        api_app_id: opts.appId,
        token: VERIFICATION_TOKEN,
        container: { type: "view", view_id: i.view.id },
        view: i.view,
        action_id: i.actionId,
        block_id: i.blockId,
        value: i.value,
        is_enterprise_install: false,
        enterprise: null,
      }),

    messageAction: (i) =>
      interactive({
        type: "message_action",
        token: VERIFICATION_TOKEN,
        action_ts: actionTs(),
        team,
        user: user(i),
        channel: { id: i.channelId, name: i.channelName ?? i.channelId },
        is_enterprise_install: false,
        enterprise: null,
        callback_id: i.callbackId,
        trigger_id: i.triggerId,
        response_url: i.responseUrl ?? "https://hooks.slack.com/app/fake",
        message_ts: i.message.ts,
        message: { type: "message", ...i.message },
      }),

    async functionExecuted(i) {
      const now = clock();
      const eventId = i.eventId ?? `Ev${randomBytes(6).toString("hex").toUpperCase()}`;
      const res = await event(
        {
          token: VERIFICATION_TOKEN,
          team_id: opts.teamId,
          api_app_id: opts.appId,
          type: "event_callback",
          event_id: eventId,
          event_time: Math.floor(now / 1000),
          event: {
            type: "function_executed",
            function: {
              id: `Fn${randomBytes(5).toString("hex").toUpperCase()}`,
              callback_id: i.callbackId,
              title: i.title ?? i.callbackId,
              description: "",
              type: "app",
              input_parameters: [],
              output_parameters: [],
              app_id: opts.appId,
              date_created: Math.floor(now / 1000),
              date_updated: Math.floor(now / 1000),
              date_deleted: 0,
            },
            inputs: i.inputs,
            function_execution_id: i.functionExecutionId,
            workflow_execution_id:
              i.workflowExecutionId ?? `Wx${randomBytes(5).toString("hex").toUpperCase()}`,
            event_ts: (now / 1000).toFixed(6),
            bot_access_token: i.botAccessToken,
          },
          authorizations: [
            {
              enterprise_id: null,
              team_id: opts.teamId,
              user_id: i.botUserId ?? "U0ORDERBOT",
              is_bot: true,
              is_enterprise_install: false,
            },
          ],
          is_ext_shared_channel: false,
        },
        i.retry
          ? { "x-slack-retry-num": String(i.retry.num), "x-slack-retry-reason": i.retry.reason }
          : undefined,
      );
      return { ...res, eventId };
    },

    urlVerification: (challenge) => event({ token: VERIFICATION_TOKEN, challenge, type: "url_verification" }),
  };
}
