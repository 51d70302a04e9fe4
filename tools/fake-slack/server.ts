import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { type Logger, pino } from "pino";
import { formatProblems, inputBlockIds, validateView } from "./blocks.ts";
import {
  ChannelPace,
  type Fault,
  Faults,
  HeldCall,
  LIMITED_HISTORY_METHODS,
  LimitedHistory,
} from "./faults.ts";
import { type Clock, slackId } from "./ids.ts";
import { findInjections, type Injection, type InjectionOptions } from "./injections.ts";
import { Args, type AuthInfo, SlackApiError } from "./methods/context.ts";
import { receiveUpload } from "./methods/files.ts";
import type { FunctionOutputs } from "./methods/functions.ts";
import { methodTable } from "./methods/index.ts";
import { stackOf, viewJson } from "./methods/views.ts";
import {
  createSocketMode,
  type FakeSocketMode,
  isAppToken,
  type SocketModeOptions,
} from "./socket/socket-mode.ts";
import {
  type CallRecord,
  type FakeChannel,
  type FakeEphemeral,
  type FakeFile,
  type FakeFunctionExecution,
  type FakeMessage,
  type FakeUser,
  type FakeUsergroup,
  type FakeView,
  FakeWorkspace,
  type Json,
} from "./state.ts";
import { renderTranscript, type TranscriptOptions } from "./transcript.ts";
import { type TypedValue, viewState } from "./view-state.ts";

/** The bot scopes manifest.yml asks for; a test keeps the two lists equal. */
export const DEFAULT_BOT_SCOPES = [
  "commands",
  "chat:write",
  "usergroups:read",
  "channels:read",
  "groups:read",
  "channels:history",
  "groups:history",
  "im:history",
  "im:write",
  "files:write",
] as const;

/** Outputs `place_order` must return (manifest.yml `functions.place_order.output_parameters.required`). */
export const DEFAULT_FUNCTION_OUTPUTS: FunctionOutputs = {
  place_order: { required: ["correlation_id", "external_document_number", "order_message_link"] },
};

export interface ChannelInput {
  id: string;
  name?: string;
  isPrivate?: boolean;
  isArchived?: boolean;
  /** Whether the bot has been added to the channel (default true). */
  botIsMember?: boolean;
  /** Human members (default: every user). */
  members?: string[];
}

export interface FakeSlackOptions {
  botToken: string;
  teamId?: string;
  teamDomain?: string;
  botUserId?: string;
  botId?: string;
  appId?: string;
  users?: FakeUser[];
  channels?: ChannelInput[];
  usergroups?: FakeUsergroup[];
  /** Scopes granted to the bot token; default: the manifest's. */
  scopes?: readonly string[];
  /** Millisecond clock for ts, trigger expiry and pacing (default Date.now). */
  clock?: Clock;
  /** How long a trigger_id stays exchangeable (Slack: 3000 ms). */
  triggerTtlMs?: number;
  functionOutputs?: FunctionOutputs;
  /** Enforce Slack's per-channel posting pace on chat.postMessage (off by default). */
  channelPace?: { perSecond: number; burst: number };
  /**
   * Enforce Slack's budget for reading conversations of apps distributed outside its Marketplace: one
   * `conversations.history` / `conversations.replies` call a minute per method (a 429 with Retry-After otherwise),
   * 15 messages a call (faults.ts `LimitedHistory`; off by default). Uses `clock`.
   */
  limitedHistory?: boolean | { intervalMs?: number; maxMessages?: number };
  /** Socket Mode: the app-level token it accepts, Slack's ack deadline and retries, pings (socket/socket-mode.ts). */
  socketMode?: SocketModeOptions;
  host?: string;
  port?: number;
  logger?: Logger;
}

export interface ViewResponseOutcome {
  outcome: "closed" | "errors" | "updated" | "pushed" | "cleared" | "rejected";
  /** Why Slack would refuse the response (the user then sees "We had some trouble connecting"). */
  problems: string[];
}

/** A message the app sent to a `response_url` (slash command / shortcut / button replies). */
export interface ResponseUrlPost {
  id: string;
  at: number;
  body: unknown;
}

export interface WaitForOptions {
  timeoutMs?: number;
  /** What is awaited, for the timeout message. */
  what?: string;
}

const DEFAULT_USERS: FakeUser[] = [
  { id: "U0AGENT01", name: "alice", realName: "Alice Agent", email: "alice@example.com" },
  { id: "U0MANAGER", name: "mark", realName: "Mark Manager", email: "mark@example.com" },
  {
    id: "U0NEWHIRE",
    name: "nina",
    realName: "Nina Newhire",
    email: "nina@example.com",
    phone: "+31 20 555 0101",
  },
];

function send(
  res: ServerResponse,
  status: number,
  body: Json | string,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": typeof body === "string" ? "text/plain" : "application/json; charset=utf-8",
    ...headers,
  });
  res.end(text);
}

async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString("utf8");
}

function parseArgs(contentType: string, body: string, query: URLSearchParams): Json {
  const args: Json = Object.fromEntries(query.entries());
  if (body.length === 0) return args;
  if (contentType.startsWith("application/json")) {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== "object" || parsed === null) throw new SlackApiError("invalid_json");
    return { ...args, ...(parsed as Json) };
  }
  if (contentType.startsWith("application/x-www-form-urlencoded") || contentType === "") {
    return { ...args, ...Object.fromEntries(new URLSearchParams(body).entries()) };
  }
  throw new SlackApiError("invalid_post_type");
}

/** Arguments as recorded in the call log: JSON-text fields decoded for easy assertions, no token. */
function loggedArgs(args: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(args)) {
    if (k === "token") continue;
    if (typeof v === "string" && /^(blocks|view|outputs|attachments|metadata|inputs)$/.test(k)) {
      try {
        out[k] = JSON.parse(v);
        continue;
      } catch {
        // keep the raw text: the handler reports the problem
      }
    }
    out[k] = v;
  }
  return out;
}

/** Which calls of a method a fault takes: those to `channel`, those whose `text` contains `text`. */
export interface FaultScope {
  channel?: string;
  text?: string;
}

export interface FakeSlack {
  /** Give this to Bolt/WebClient as `slackApiUrl`. */
  readonly apiUrl: string;
  readonly workspace: FakeWorkspace;
  readonly botToken: string;
  readonly teamId: string;
  readonly botUserId: string;
  readonly appId: string;

  // Inspection
  /** Every message in a channel (top-level and replies), in posting order. */
  messages(channel: string): FakeMessage[];
  /** Only the top-level messages of a channel. */
  topLevel(channel: string): FakeMessage[];
  /** The replies in a message's thread, in order. */
  thread(channel: string, ts: string): FakeMessage[];
  message(channel: string, ts: string): FakeMessage | undefined;
  /** The messages the app sent to a user's DM. */
  dm(userId: string): FakeMessage[];
  /** Files uploaded (files.getUploadURLExternal … files.completeUploadExternal), in order. */
  files(): FakeFile[];
  view(id: string): FakeView | undefined;
  views(filter?: Partial<Pick<FakeView, "userId" | "type" | "status" | "openedWithTrigger">>): FakeView[];
  /** The view's JSON as Slack would send it in a payload (`view` of view_submission/block_actions). */
  viewPayload(id: string): Json;
  homeView(userId: string): FakeView | undefined;
  ephemerals(filter?: { channel?: string; user?: string }): FakeEphemeral[];
  execution(id: string): FakeFunctionExecution | undefined;
  calls(method?: string): CallRecord[];
  transcript(channel: string, opts?: TranscriptOptions): string;

  /** Messages the app sent to response URLs handed out by `responseUrl()`. */
  responses(id?: string): ResponseUrlPost[];
  /**
   * Mentions and links in anything the app sent (messages and their edits, ephemerals, responses, views) that a
   * real workspace would act on and `options` does not allow: `<!channel>`, `<!here>`, `<!everyone>`, a user
   * group, a person, a link to another host. Empty when hostile input was shown as text.
   */
  injections(options?: InjectionOptions): Injection[];

  /** Socket Mode: the app's connections, envelopes and acks; sends envelopes, `disconnect`, drops connections. */
  readonly socketMode: FakeSocketMode;

  // Set-up, as a person or an admin would change the workspace
  issueTriggerId(userId?: string): string;
  /** A `response_url` served by the fake, so `respond()` never leaves loopback. */
  responseUrl(): string;
  startFunctionExecution(
    callbackId: string,
    inputs: Json,
  ): { functionExecutionId: string; workflowExecutionId: string; botAccessToken: string };
  addChannel(channel: ChannelInput): FakeChannel;
  setMember(channel: string, isMember: boolean): void;
  setArchived(channel: string, isArchived: boolean): void;
  addUser(user: FakeUser): void;
  addUsergroup(group: FakeUsergroup): void;
  postAsUser(channel: string, userId: string, text: string, threadTs?: string): FakeMessage;
  /** What the user typed into a view: `values[block_id][action_id] = { type, value | selected_option ... }`. */
  setViewValues(viewId: string, values: FakeView["values"]): void;
  /** Types into a view's inputs (keys: block_id, or a unique action_id), keeping earlier input. */
  fillView(viewId: string, typed: Record<string, TypedValue>): void;
  /** Applies the app's answer to a view_submission as Slack would (close, errors, update, push, clear). */
  applyViewResponse(viewId: string, response: unknown): ViewResponseOutcome;
  /** The user closes a modal with its close button / Esc. */
  closeView(viewId: string): void;

  // Faults
  rateLimit(opts: { method?: string; count: number; retryAfterSec: number }): void;
  /**
   * The next `count` calls of `method` fail (Slack's `{ ok: false, error }`, or an HTTP status); with `channel`,
   * only the calls whose `channel` argument is that (e.g. a DM posted to one user's id, or to their DM channel).
   */
  failNext(
    method: string,
    failure: string | { httpStatus: number; body?: string },
    count?: number,
    options?: { channel?: string },
  ): void;
  setLatency(ms: number, method?: string): void;
  /**
   * The next calls of `method` are never answered; with `channel` and `text`, only the calls whose `channel` is
   * that and whose `text` contains that (one post among the others to the same channel).
   */
  hangNext(method: string, count?: number, options?: FaultScope): void;
  /** The next calls of `method` take effect, but their answers are lost (the connection drops); as `hangNext`. */
  loseAnswerNext(method: string, count?: number, options?: FaultScope): void;
  /**
   * The next calls of `method` take effect at once, but are answered only after `delayMs` (longer than the caller's
   * timeout: it gave up on a call that worked); as `hangNext`.
   */
  answerLateNext(method: string, delayMs: number, count?: number, options?: FaultScope): void;
  /**
   * The next call of `method` (as `hangNext`) waits before Slack takes it, until the test calls `release()` on what
   * this returns; its `arrived` resolves once the call reached Slack. `close()` releases any still held.
   */
  holdNext(method: string, options?: FaultScope): HeldCall;
  clearFaults(): void;

  waitFor<T>(predicate: () => T | undefined | null | false, opts?: WaitForOptions): Promise<T>;
  close(): Promise<void>;
}

export async function startFakeSlack(options: FakeSlackOptions): Promise<FakeSlack> {
  const logger = options.logger ?? pino({ level: "silent" });
  const clock = options.clock ?? Date.now;
  const teamId = options.teamId ?? "T0ORDERDSK";
  const botUserId = options.botUserId ?? "U0ORDERBOT";
  const appId = options.appId ?? "A0ORDERDSK";
  const ws = new FakeWorkspace({
    teamId,
    teamDomain: options.teamDomain ?? "order-desk-demo",
    botUserId,
    botId: options.botId ?? "B0ORDERBOT",
    appId,
    clock,
  });
  for (const u of options.users ?? DEFAULT_USERS) ws.users.set(u.id, u);
  for (const c of options.channels ?? []) ws.addChannel(c);
  for (const g of options.usergroups ?? []) ws.usergroups.set(g.id, g);
  const scopes = new Set(options.scopes ?? DEFAULT_BOT_SCOPES);
  const methods = methodTable(options.functionOutputs ?? DEFAULT_FUNCTION_OUTPUTS);
  const faults = new Faults();
  const held = new Set<HeldCall>();
  const pace = options.channelPace
    ? new ChannelPace(options.channelPace.perSecond, options.channelPace.burst)
    : undefined;
  const limitedHistory = options.limitedHistory
    ? options.limitedHistory === true
      ? new LimitedHistory()
      : new LimitedHistory(options.limitedHistory.intervalMs, options.limitedHistory.maxMessages)
    : undefined;
  const triggerTtlMs = options.triggerTtlMs ?? 3000;
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const changed = () => events.emit("change");
  let seq = 0;
  let wsBase = "";
  const socket = createSocketMode({ clock, appId, wsBase: () => wsBase, changed }, options.socketMode);

  function authenticate(req: IncomingMessage, args: Json): AuthInfo | "none" | "invalid" {
    const header = req.headers.authorization;
    const token = header?.startsWith("Bearer ")
      ? header.slice(7)
      : typeof args.token === "string"
        ? args.token
        : undefined;
    if (!token) return "none";
    if (token === options.botToken) return { kind: "bot" };
    if (isAppToken(token)) return socket.acceptsToken(token) ? { kind: "app" } : "invalid";
    for (const e of ws.executions.values()) {
      if (e.token === token) return { kind: "function", executionId: e.id };
    }
    return "invalid";
  }

  async function answer(method: string, req: IncomingMessage, res: ServerResponse): Promise<CallRecord> {
    const at = clock();
    const record: CallRecord = {
      seq: ++seq,
      method,
      at,
      token: "none",
      args: {},
      httpStatus: 200,
      response: undefined,
    };
    let args: Json;
    try {
      const url = new URL(req.url ?? "/", "http://fake");
      args = parseArgs(req.headers["content-type"] ?? "", await readBody(req), url.searchParams);
    } catch (err) {
      const error = err instanceof SlackApiError ? err.error : "invalid_form_data";
      record.response = { ok: false, error };
      send(res, 200, record.response);
      return record;
    }
    record.args = loggedArgs(args);
    const auth = authenticate(req, args);
    record.token = typeof auth === "string" ? auth : auth.kind;

    const latency = faults.latencyFor(method);
    if (latency > 0) await delay(latency);
    const fault: Fault | undefined = faults.take(
      method,
      typeof args.channel === "string" ? args.channel : undefined,
      typeof args.text === "string" ? args.text : undefined,
    );
    if (fault?.kind === "hold") {
      fault.gate.arrive();
      await fault.gate.released;
    }
    if (fault?.kind === "hang") {
      record.httpStatus = 0;
      return record; // never answered; close() drops the connection
    }
    if (fault?.kind === "rate_limit") {
      record.httpStatus = 429;
      record.response = { ok: false, error: "ratelimited" };
      send(res, 429, record.response, { "retry-after": String(fault.retryAfterSec) });
      return record;
    }
    if (fault?.kind === "http") {
      record.httpStatus = fault.status;
      send(res, fault.status, fault.body);
      return record;
    }

    let body: Json;
    const handler = methods[method];
    if (auth === "none") body = { ok: false, error: "not_authed" };
    else if (auth === "invalid") body = { ok: false, error: "invalid_auth" };
    else if (fault?.kind === "error") body = { ok: false, error: fault.error };
    else if (method === "apps.connections.open")
      // Only an app-level token (xapp-…) opens a connection; Slack refuses a bot token this way.
      body =
        auth.kind === "app"
          ? { ok: true, url: socket.openUrl() }
          : { ok: false, error: "not_allowed_token_type" };
    else if (auth.kind === "app") body = { ok: false, error: "not_allowed_token_type" };
    else if (!handler) body = { ok: false, error: "unknown_method" };
    else {
      if (pace && method === "chat.postMessage" && typeof args.channel === "string") {
        const wait = pace.check(args.channel, at);
        if (wait > 0) {
          record.httpStatus = 429;
          record.response = { ok: false, error: "ratelimited" };
          send(res, 429, record.response, { "retry-after": String(wait) });
          return record;
        }
      }
      if (limitedHistory && LIMITED_HISTORY_METHODS.has(method)) {
        const wait = limitedHistory.check(method, at);
        if (wait > 0) {
          record.httpStatus = 429;
          record.response = { ok: false, error: "ratelimited" };
          send(res, 429, record.response, { "retry-after": String(wait) });
          return record;
        }
        args = { ...args, limit: limitedHistory.limit(args.limit) };
      }
      try {
        body = { ok: true, ...handler({ args: new Args(args), ws, auth, scopes, now: at, triggerTtlMs }) };
      } catch (err) {
        if (!(err instanceof SlackApiError)) throw err;
        body = { ok: false, error: err.error, ...err.extra };
      }
    }
    record.response = body;
    if (fault?.kind === "lost_answer") {
      record.httpStatus = 0;
      req.socket.destroy();
      return record;
    }
    if (fault?.kind === "late_answer") {
      const late = body;
      // The caller may have dropped the connection by then (its timeout): nobody is left to answer.
      setTimeout(() => {
        if (!res.destroyed) send(res, 200, late, { "x-oauth-scopes": [...scopes].join(",") });
      }, fault.delayMs).unref();
      return record;
    }
    send(res, 200, body, { "x-oauth-scopes": [...scopes].join(",") });
    return record;
  }

  const responses: ResponseUrlPost[] = [];
  const server = createServer((req, res) => {
    const hook = /^\/responses\/([A-Za-z0-9]+)$/.exec(req.url ?? "");
    if (hook?.[1] && req.method === "POST") {
      const id = hook[1];
      readBody(req)
        .then((text) => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // Slack also accepts plain text here
          }
          responses.push({ id, at: clock(), body });
          send(res, 200, "ok");
          changed();
        })
        .catch(() => send(res, 400, "bad request"));
      return;
    }
    const upload = /^\/upload\/([A-Za-z0-9]+)$/.exec(req.url ?? "");
    if (upload?.[1] && req.method === "POST") {
      const id = upload[1];
      readBytes(req)
        .then((bytes) => {
          const answer = receiveUpload(ws, id, req.headers["content-type"] ?? "", bytes);
          send(res, answer.status, answer.text);
          changed();
        })
        .catch(() => send(res, 400, "bad request"));
      return;
    }
    const match = /^\/api\/([A-Za-z0-9._]+)/.exec(req.url ?? "");
    if (!match?.[1] || (req.method !== "POST" && req.method !== "GET")) {
      send(res, 404, { ok: false, error: "unknown_method" });
      return;
    }
    const method = match[1];
    answer(method, req, res)
      .then((record) => {
        ws.calls.push(record);
        logger.debug(
          { method, status: record.httpStatus, ok: record.response?.ok, error: record.response?.error },
          "fake slack call",
        );
        changed();
      })
      .catch((err: unknown) => {
        logger.error({ err, method }, "fake slack handler failed");
        if (!res.headersSent) send(res, 500, { ok: false, error: "fatal_error" });
      });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () =>
      resolve((server.address() as AddressInfo).port),
    );
  });
  const baseUrl = `http://${options.host ?? "127.0.0.1"}:${port}`;
  ws.baseUrl = baseUrl;
  const apiUrl = `${baseUrl}/api/`;
  wsBase = `ws://${options.host ?? "127.0.0.1"}:${port}`;
  server.on("upgrade", (req, stream) => socket.upgrade(req, stream));

  function requireView(id: string): FakeView {
    const view = ws.views.get(id);
    if (!view)
      throw new Error(
        `No view ${id} in the fake Slack; views opened: ${[...ws.views.keys()].join(", ") || "none"}`,
      );
    return view;
  }

  const fake: FakeSlack = {
    apiUrl,
    workspace: ws,
    botToken: options.botToken,
    teamId,
    botUserId,
    appId,

    messages: (channel) => [...(ws.messages.get(channel) ?? [])],
    topLevel: (channel) => (ws.messages.get(channel) ?? []).filter((m) => m.threadTs === undefined),
    thread: (channel, ts) => (ws.messages.get(channel) ?? []).filter((m) => m.threadTs === ts),
    message: (channel, ts) => ws.findMessage(channel, ts),
    dm: (userId) => [...(ws.messages.get(`D${userId.replace(/^[UW]/, "")}`) ?? [])],
    files: () => [...ws.files.values()],
    view: (id) => ws.views.get(id),
    views: (filter = {}) =>
      [...ws.views.values()].filter((v) =>
        Object.entries(filter).every(([k, want]) => want === undefined || v[k as keyof FakeView] === want),
      ),
    viewPayload(id) {
      const view = requireView(id);
      // In payloads Slack reports every input, untouched ones with their initial value.
      return { ...viewJson(ws, view), state: { values: viewState(view.definition, view.values) } };
    },
    homeView: (userId) => [...ws.views.values()].find((v) => v.type === "home" && v.userId === userId),
    ephemerals: (filter = {}) =>
      ws.ephemerals.filter(
        (e) =>
          (filter.channel === undefined || e.channel === filter.channel) &&
          (filter.user === undefined || e.user === filter.user),
      ),
    execution: (id) => ws.executions.get(id),
    calls: (method) => ws.calls.filter((c) => method === undefined || c.method === method),
    transcript: (channel, opts) => renderTranscript(ws, channel, opts),

    responses: (id) => responses.filter((r) => id === undefined || r.id === id),
    injections: (opts) => findInjections(ws, responses, opts),
    socketMode: socket.api,

    issueTriggerId: (userId) => ws.issueTrigger(userId).id,
    responseUrl: () => `${baseUrl}/responses/${slackId("R", 12)}`,
    startFunctionExecution(callbackId, inputs) {
      const e = ws.startExecution(callbackId, inputs);
      return {
        functionExecutionId: e.id,
        workflowExecutionId: e.workflowExecutionId,
        botAccessToken: e.token,
      };
    },
    addChannel(channel) {
      const c = ws.addChannel(channel);
      changed();
      return c;
    },
    setMember(channel, isMember) {
      const c = ws.channels.get(channel);
      if (!c) throw new Error(`No channel ${channel} in the fake Slack`);
      c.botIsMember = isMember;
    },
    setArchived(channel, isArchived) {
      const c = ws.channels.get(channel);
      if (!c) throw new Error(`No channel ${channel} in the fake Slack`);
      c.isArchived = isArchived;
    },
    addUser(user) {
      ws.users.set(user.id, user);
      for (const c of ws.channels.values()) if (!c.isIm && !c.isPrivate) c.members.add(user.id);
    },
    addUsergroup(group) {
      ws.usergroups.set(group.id, group);
    },
    postAsUser(channel, userId, text, threadTs) {
      if (!ws.channels.has(channel)) throw new Error(`No channel ${channel} in the fake Slack`);
      const m = ws.addMessage({ channel, user: userId, isBot: false, text, threadTs });
      changed();
      return m;
    },
    setViewValues(viewId, values) {
      const view = requireView(viewId);
      view.values = structuredClone(values);
      changed();
    },
    fillView(viewId, typed) {
      const view = requireView(viewId);
      view.values = { ...view.values, ...viewState(view.definition, view.values, typed) };
      changed();
    },
    applyViewResponse(viewId, response) {
      const view = requireView(viewId);
      const outcome = applyViewResponse(ws, view, response);
      changed();
      return outcome;
    },
    closeView(viewId) {
      requireView(viewId).status = "closed";
      changed();
    },

    rateLimit: ({ method, count, retryAfterSec }) =>
      faults.add(method, count, { kind: "rate_limit", retryAfterSec }),
    failNext(method, failure, count = 1, options = {}) {
      faults.add(
        method,
        count,
        typeof failure === "string"
          ? { kind: "error", error: failure }
          : { kind: "http", status: failure.httpStatus, body: failure.body ?? "upstream unavailable" },
        options.channel,
      );
    },
    setLatency: (ms, method) => faults.setLatency(ms, method),
    hangNext: (method, count = 1, options = {}) =>
      faults.add(method, count, { kind: "hang" }, options.channel, options.text),
    loseAnswerNext: (method, count = 1, options = {}) =>
      faults.add(method, count, { kind: "lost_answer" }, options.channel, options.text),
    answerLateNext: (method, delayMs, count = 1, options = {}) =>
      faults.add(method, count, { kind: "late_answer", delayMs }, options.channel, options.text),
    holdNext: (method, options = {}) => {
      const gate = new HeldCall();
      held.add(gate);
      faults.add(method, 1, { kind: "hold", gate }, options.channel, options.text);
      return gate;
    },
    clearFaults: () => faults.clear(),

    waitFor<T>(predicate: () => T | undefined | null | false, opts: WaitForOptions = {}): Promise<T> {
      const timeoutMs = opts.timeoutMs ?? 5000;
      return new Promise<T>((resolve, reject) => {
        const check = (): boolean => {
          const value = predicate();
          if (value === undefined || value === null || value === false) return false;
          cleanup();
          resolve(value);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          const recent = ws.calls
            .slice(-8)
            .map(
              (c) =>
                `${c.method} → ${c.httpStatus} ${c.response?.ok === false ? String(c.response.error) : "ok"}`,
            )
            .join("; ");
          reject(
            new Error(
              `Timed out after ${timeoutMs} ms waiting for ${opts.what ?? "a condition"} in the fake Slack. Recent calls: ${recent || "none"}`,
            ),
          );
        }, timeoutMs);
        // Some conditions depend on the clock, not on a call; poll as a fallback.
        const poll = setInterval(check, 50);
        const cleanup = () => {
          clearTimeout(timer);
          clearInterval(poll);
          events.off("change", check);
        };
        events.on("change", check);
        check();
      });
    },

    async close() {
      for (const gate of held) gate.release();
      socket.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

function applyViewResponse(ws: FakeWorkspace, view: FakeView, response: unknown): ViewResponseOutcome {
  const body = typeof response === "object" && response !== null ? (response as Json) : {};
  const action = body.response_action;
  if (action === undefined) {
    view.status = "closed";
    return { outcome: "closed", problems: [] };
  }
  if (action === "errors") {
    const errors = body.errors;
    if (typeof errors !== "object" || errors === null) {
      return { outcome: "rejected", problems: ["response_action errors needs an `errors` object"] };
    }
    const inputs = inputBlockIds(view.definition.blocks);
    const problems = Object.keys(errors)
      .filter((id) => !inputs.has(id))
      .map((id) => `errors key \`${id}\` is not the block_id of an input block in this view`);
    for (const [id, message] of Object.entries(errors)) {
      if (typeof message !== "string" || message.length === 0)
        problems.push(`error for \`${id}\` must be a non-empty string`);
    }
    if (problems.length > 0) return { outcome: "rejected", problems };
    view.errors = errors as Record<string, string>;
    return { outcome: "errors", problems: [] };
  }
  if (action === "update" || action === "push") {
    const problems = formatProblems(validateView(body.view));
    if (problems.length > 0) return { outcome: "rejected", problems };
    const definition = body.view as Json;
    if (action === "update") {
      view.definition = definition;
      view.hash = ws.newViewHash();
      view.errors = undefined;
      view.versions += 1;
      return { outcome: "updated", problems: [] };
    }
    if (stackOf(ws, view.rootViewId).length >= 3)
      return { outcome: "rejected", problems: ["push_limit_reached"] };
    const id = slackId("V", 10);
    ws.views.set(id, {
      ...view,
      id,
      definition,
      hash: ws.newViewHash(),
      previousViewId: view.id,
      values: {},
      errors: undefined,
      versions: 1,
      openedWithTrigger: undefined,
      externalId: typeof definition.external_id === "string" ? definition.external_id : "",
    });
    return { outcome: "pushed", problems: [] };
  }
  if (action === "clear") {
    for (const v of stackOf(ws, view.rootViewId)) v.status = "closed";
    return { outcome: "cleared", problems: [] };
  }
  return { outcome: "rejected", problems: [`unknown response_action \`${String(action)}\``] };
}
