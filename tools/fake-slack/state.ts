import { type Clock, randomHex, slackId, TsSequence, triggerId } from "./ids.ts";

/**
 * The fake workspace: channels with messages and threads, views, triggers, function executions and
 * ephemeral messages. Method handlers mutate it; tests and the demo read it. Plain data, no I/O.
 */

export type Json = Record<string, unknown>;

export interface FakeUser {
  id: string;
  name: string;
  realName: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string;
  tz?: string;
  isBot?: boolean;
}

export interface FakeChannel {
  id: string;
  name: string;
  isPrivate: boolean;
  isArchived: boolean;
  isIm: boolean;
  /** For a DM: the human on the other side. */
  user?: string;
  botIsMember: boolean;
  members: Set<string>;
}

export interface MessageVersion {
  at: number;
  text: string;
  blocks: unknown[] | undefined;
}

export interface FakeMessage {
  channel: string;
  ts: string;
  threadTs: string | undefined;
  /** The poster: a user id for people, the bot user id for our app. */
  user: string;
  isBot: boolean;
  text: string;
  blocks: unknown[] | undefined;
  metadata: unknown;
  replyBroadcast: boolean;
  postedAt: number;
  /** Every version, oldest first; the last is what Slack shows now. */
  versions: MessageVersion[];
  replies: string[];
}

/** A file uploaded with files.getUploadURLExternal → upload URL → files.completeUploadExternal. */
export interface FakeFile {
  id: string;
  filename: string;
  /** The length announced to files.getUploadURLExternal. */
  length: number;
  /** The bytes sent to the upload URL (undefined until they arrive). */
  content: Buffer | undefined;
  title: string | undefined;
  /** Where files.completeUploadExternal shared it: the message that shows it. */
  shares: Array<{ channel: string; ts: string }>;
  completed: boolean;
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  threadTs: string | undefined;
  messageTs: string;
  text: string;
  blocks: unknown[] | undefined;
  at: number;
}

export interface FakeView {
  id: string;
  teamId: string;
  appId: string;
  botId: string;
  userId: string;
  type: "modal" | "home";
  /** The view object as the app last sent it (title, blocks, callback_id, ...). */
  definition: Json;
  hash: string;
  rootViewId: string;
  previousViewId: string | null;
  externalId: string;
  /** What the user has typed/selected: `state.values[block_id][action_id]`. */
  values: Record<string, Record<string, Json>>;
  status: "open" | "closed";
  openedWithTrigger: string | undefined;
  /** `response_action: errors` last shown on this view, keyed by block_id. */
  errors: Record<string, string> | undefined;
  versions: number;
  updatedAt: number;
}

export interface FakeTrigger {
  id: string;
  userId: string | undefined;
  issuedAt: number;
  usedAt: number | undefined;
}

export interface FakeFunctionExecution {
  id: string;
  workflowExecutionId: string;
  callbackId: string;
  inputs: Json;
  token: string;
  status: "running" | "completed" | "failed";
  outputs: Json | undefined;
  error: string | undefined;
  startedAt: number;
  endedAt: number | undefined;
}

export interface FakeUsergroup {
  id: string;
  handle: string;
  users: string[];
}

export interface CallRecord {
  seq: number;
  method: string;
  at: number;
  /** Which kind of token made the call; the token itself is never kept. */
  token: "bot" | "function" | "app" | "invalid" | "none";
  args: Json;
  httpStatus: number;
  response: Json | undefined;
}

export interface WorkspaceOptions {
  teamId: string;
  teamDomain: string;
  botUserId: string;
  botId: string;
  appId: string;
  clock: Clock;
}

export class FakeWorkspace {
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage[]>();
  readonly views = new Map<string, FakeView>();
  readonly triggers = new Map<string, FakeTrigger>();
  readonly executions = new Map<string, FakeFunctionExecution>();
  readonly users = new Map<string, FakeUser>();
  readonly usergroups = new Map<string, FakeUsergroup>();
  readonly ephemerals: FakeEphemeral[] = [];
  readonly calls: CallRecord[] = [];
  readonly files = new Map<string, FakeFile>();
  /** `http://127.0.0.1:<port>`, set once the server listens: upload URLs point here. */
  baseUrl = "";
  private readonly ts: TsSequence;

  constructor(readonly opts: WorkspaceOptions) {
    this.ts = new TsSequence(opts.clock);
  }

  now(): number {
    return this.opts.clock();
  }

  nextTs(): string {
    return this.ts.next();
  }

  addChannel(c: {
    id: string;
    name?: string;
    isPrivate?: boolean;
    isArchived?: boolean;
    botIsMember?: boolean;
    members?: string[];
  }): FakeChannel {
    const channel: FakeChannel = {
      id: c.id,
      name: c.name ?? c.id.toLowerCase(),
      isPrivate: c.isPrivate ?? false,
      isArchived: c.isArchived ?? false,
      isIm: false,
      botIsMember: c.botIsMember ?? true,
      members: new Set(c.members ?? [...this.users.keys()]),
    };
    this.channels.set(channel.id, channel);
    this.messages.set(channel.id, []);
    return channel;
  }

  /** The app's DM with a user, created the first time the app posts to the user's id. */
  imWith(userId: string): FakeChannel {
    const id = `D${userId.replace(/^[UW]/, "")}`;
    let channel = this.channels.get(id);
    if (!channel) {
      channel = {
        id,
        name: id,
        isPrivate: true,
        isArchived: false,
        isIm: true,
        user: userId,
        botIsMember: true,
        members: new Set([userId]),
      };
      this.channels.set(id, channel);
      this.messages.set(id, []);
    }
    return channel;
  }

  findMessage(channel: string, ts: string): FakeMessage | undefined {
    return this.messages.get(channel)?.find((m) => m.ts === ts);
  }

  addMessage(m: {
    channel: string;
    user: string;
    isBot: boolean;
    text: string;
    blocks?: unknown[] | undefined;
    threadTs?: string | undefined;
    metadata?: unknown;
    replyBroadcast?: boolean;
  }): FakeMessage {
    const at = this.now();
    const message: FakeMessage = {
      channel: m.channel,
      ts: this.nextTs(),
      threadTs: m.threadTs,
      user: m.user,
      isBot: m.isBot,
      text: m.text,
      blocks: m.blocks,
      metadata: m.metadata,
      replyBroadcast: m.replyBroadcast ?? false,
      postedAt: at,
      versions: [{ at, text: m.text, blocks: m.blocks }],
      replies: [],
    };
    this.messages.get(m.channel)?.push(message);
    if (m.threadTs) this.findMessage(m.channel, m.threadTs)?.replies.push(message.ts);
    return message;
  }

  issueTrigger(userId?: string): FakeTrigger {
    const trigger: FakeTrigger = {
      id: triggerId(this.opts.teamId.replace(/\D/g, "").padEnd(10, "0").slice(0, 10), this.opts.clock),
      userId,
      issuedAt: this.now(),
      usedAt: undefined,
    };
    this.triggers.set(trigger.id, trigger);
    return trigger;
  }

  startExecution(callbackId: string, inputs: Json): FakeFunctionExecution {
    const execution: FakeFunctionExecution = {
      id: slackId("Fx", 12),
      workflowExecutionId: slackId("Wx", 12),
      callbackId,
      inputs,
      token: `xwfp-${randomHex(4)}-${randomHex(16)}`,
      status: "running",
      outputs: undefined,
      error: undefined,
      startedAt: this.now(),
      endedAt: undefined,
    };
    this.executions.set(execution.id, execution);
    return execution;
  }

  newViewHash(): string {
    return `${Math.floor(this.now() / 1000)}.${randomHex(4)}`;
  }

  permalink(channel: string, ts: string): string {
    const message = this.findMessage(channel, ts);
    const base = `https://${this.opts.teamDomain}.slack.com/archives/${channel}/p${ts.replace(".", "")}`;
    return message?.threadTs ? `${base}?thread_ts=${message.threadTs}&cid=${channel}` : base;
  }
}
