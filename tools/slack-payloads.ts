import { randomBytes } from "node:crypto";

/**
 * What Slack sends an app when people use it — slash commands, interactivity (`view_submission`, clicks,
 * shortcuts, type-ahead), Events API callbacks — built once, with the same fields Slack fills in, and carried
 * by either transport: HTTP requests signed like Slack signs them (slack-requests.ts), or Socket Mode
 * envelopes over the fake Slack's WebSocket (socket-mode-requests.ts). Tests, the demo and the reliability
 * suite drive the app through `SlackRequests` and so run the same scenarios in both modes.
 */

/**
 * The app's answer. Over HTTP: the response. In Socket Mode: `status` 200 once the envelope was acked, `body`
 * the ack's payload (a modal's `response_action`, a type-ahead's options), `headers` empty.
 */
export interface SlackHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The raw response text ("" for an empty ack). */
  text: string;
  /** The parsed JSON body when the app answered JSON (e.g. `{ response_action: "errors", ... }`), else undefined. */
  body: unknown;
}

/** One thing Slack sends, before a transport carries it. */
export type SlackPayload =
  /** A slash command: form fields over HTTP, the same fields as JSON in a `slash_commands` envelope. */
  | { kind: "slash_command"; fields: Record<string, string> }
  /** Interactivity: a `payload=` form field over HTTP, an `interactive` envelope in Socket Mode. */
  | { kind: "interactive"; payload: Record<string, unknown> }
  /** An Events API callback; `retry` marks Slack's redelivery of it. */
  | { kind: "event"; body: Record<string, unknown>; retry?: { num: number; reason: string } };

export interface PayloadOptions {
  teamId: string;
  teamDomain?: string;
  appId: string;
  /** Millisecond clock for `action_ts` / `event_time`. */
  clock?: () => number;
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
  /** Override the signature (bad-signature tests) or the timestamp (stale tests); HTTP only. */
  signature?: string;
  timestampSec?: number;
  headers?: Record<string, string>;
}

export interface SlackRequests {
  slashCommand(input: SlashCommandInput): Promise<SlackHttpResponse>;
  viewSubmission(input: ViewSubmissionInput): Promise<SlackHttpResponse>;
  viewClosed(input: Actor & { view: Record<string, unknown> }): Promise<SlackHttpResponse>;
  blockActions(input: BlockActionsInput): Promise<SlackHttpResponse>;
  blockSuggestion(input: BlockSuggestionInput): Promise<SlackHttpResponse>;
  messageAction(input: MessageActionInput): Promise<SlackHttpResponse>;
  functionExecuted(input: FunctionExecutedInput): Promise<SlackHttpResponse & { eventId: string }>;
  /** The user opened the app's Home tab (`app_home_opened`, tab `home`). */
  appHomeOpened(input: { userId: string }): Promise<SlackHttpResponse>;
  urlVerification(challenge: string): Promise<SlackHttpResponse>;
  /** Sends any body: over HTTP signed unless `signature` overrides it; in Socket Mode as the envelope it makes. */
  send(raw: RawRequest): Promise<SlackHttpResponse>;
}

const VERIFICATION_TOKEN = "fake-verification-token";

/** The body of each kind of request, as Slack fills it in. */
export function slackPayloads(opts: PayloadOptions) {
  const clock = opts.clock ?? Date.now;
  const team = { id: opts.teamId, domain: opts.teamDomain ?? "order-desk-demo" };
  const user = (a: Actor) => ({
    id: a.userId,
    username: a.userName ?? a.userId,
    name: a.userName ?? a.userId,
    team_id: opts.teamId,
  });
  const actionTs = () => (clock() / 1000).toFixed(6);
  const form = (fields: Record<string, string>): SlackPayload => ({ kind: "slash_command", fields });
  const interactive = (payload: Record<string, unknown>): SlackPayload => ({ kind: "interactive", payload });

  return {
    slashCommand: (i: SlashCommandInput) =>
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

    viewSubmission: (i: ViewSubmissionInput) =>
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

    viewClosed: (i: Actor & { view: Record<string, unknown> }) =>
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

    blockActions: (i: BlockActionsInput) => {
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

    blockSuggestion: (i: BlockSuggestionInput) =>
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

    messageAction: (i: MessageActionInput) =>
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

    functionExecuted(i: FunctionExecutedInput): SlackPayload & { kind: "event"; eventId: string } {
      const now = clock();
      const eventId = i.eventId ?? `Ev${randomBytes(6).toString("hex").toUpperCase()}`;
      return {
        kind: "event",
        eventId,
        ...(i.retry ? { retry: i.retry } : {}),
        body: {
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
      };
    },

    appHomeOpened(i: { userId: string }): SlackPayload {
      const now = clock();
      return {
        kind: "event",
        body: {
          token: VERIFICATION_TOKEN,
          team_id: opts.teamId,
          api_app_id: opts.appId,
          type: "event_callback",
          event_id: `Ev${randomBytes(6).toString("hex").toUpperCase()}`,
          event_time: Math.floor(now / 1000),
          event: {
            type: "app_home_opened",
            user: i.userId,
            channel: `D${i.userId.slice(1)}`,
            tab: "home",
            event_ts: (now / 1000).toFixed(6),
          },
          authorizations: [{ enterprise_id: null, team_id: opts.teamId, user_id: i.userId, is_bot: false }],
        },
      };
    },

    urlVerification: (challenge: string): SlackPayload => ({
      kind: "event",
      body: { token: VERIFICATION_TOKEN, challenge, type: "url_verification" },
    }),
  };
}

export type SlackPayloads = ReturnType<typeof slackPayloads>;

/** `SlackRequests` over a transport that carries a payload and returns the app's answer. */
export function requestsOver(
  payloads: SlackPayloads,
  deliver: (payload: SlackPayload) => Promise<SlackHttpResponse>,
  send: (raw: RawRequest) => Promise<SlackHttpResponse>,
): SlackRequests {
  return {
    send,
    slashCommand: (i) => deliver(payloads.slashCommand(i)),
    viewSubmission: (i) => deliver(payloads.viewSubmission(i)),
    viewClosed: (i) => deliver(payloads.viewClosed(i)),
    blockActions: (i) => deliver(payloads.blockActions(i)),
    blockSuggestion: (i) => deliver(payloads.blockSuggestion(i)),
    messageAction: (i) => deliver(payloads.messageAction(i)),
    async functionExecuted(i) {
      const payload = payloads.functionExecuted(i);
      return { ...(await deliver(payload)), eventId: payload.eventId };
    },
    appHomeOpened: (i) => deliver(payloads.appHomeOpened(i)),
    urlVerification: (challenge) => deliver(payloads.urlVerification(challenge)),
  };
}
