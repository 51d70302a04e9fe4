import type { SlackHttpResponse, SlackRequests } from "../slack-requests.ts";
import type { FakeSlack, ViewResponseOutcome } from "./server.ts";
import type { FakeView, Json } from "./state.ts";
import type { TypedValue } from "./view-state.ts";

/**
 * A person using Slack, for tests and the demo: types a slash command, fills and submits the modal
 * the app opened, clicks buttons, uses a message shortcut. Each step sends the signed request Slack
 * would send to the app and keeps the fake workspace in step (triggers, view state, the modal
 * closing or showing errors), so a scenario reads like what the user did.
 */

export interface SlackUserOptions {
  fake: FakeSlack;
  requests: SlackRequests;
  userId: string;
  userName?: string;
  /** How long to wait for the app to react (open a modal, ...). */
  timeoutMs?: number;
}

export interface Interaction {
  response: SlackHttpResponse;
  triggerId: string;
}

export interface Submission {
  response: SlackHttpResponse;
  /** What Slack did with the app's answer: closed the modal, showed errors, ... */
  outcome: ViewResponseOutcome;
  view: FakeView;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function findElement(
  blocks: unknown,
  actionId: string,
  blockId?: string,
): { element: Json; blockId: string } {
  for (const block of Array.isArray(blocks) ? blocks.filter(isObject) : []) {
    if (blockId !== undefined && block.block_id !== blockId) continue;
    const elements = [
      ...(Array.isArray(block.elements) ? block.elements : []),
      block.accessory,
      block.element,
    ].filter(isObject);
    const element = elements.find((e) => e.action_id === actionId);
    if (element) return { element, blockId: String(block.block_id ?? "") };
  }
  throw new Error(
    `No element with action_id "${actionId}"${blockId ? ` in block "${blockId}"` : ""} to click`,
  );
}

function actionFor(element: Json, blockId: string, value?: string) {
  return {
    type: String(element.type),
    action_id: String(element.action_id),
    block_id: blockId,
    ...(isObject(element.text) ? { text: element.text } : {}),
    ...(value !== undefined ? { value } : typeof element.value === "string" ? { value: element.value } : {}),
  };
}

export class SlackUser {
  readonly userId: string;
  private readonly fake: FakeSlack;
  private readonly requests: SlackRequests;
  private readonly userName: string | undefined;
  private readonly timeoutMs: number;

  constructor(opts: SlackUserOptions) {
    this.fake = opts.fake;
    this.requests = opts.requests;
    this.userId = opts.userId;
    this.userName = opts.userName ?? opts.fake.workspace.users.get(opts.userId)?.name;
    this.timeoutMs = opts.timeoutMs ?? 5000;
  }

  private get actor() {
    return this.userName === undefined
      ? { userId: this.userId }
      : { userId: this.userId, userName: this.userName };
  }

  async runCommand(input: { channel: string; command: string; text?: string }): Promise<Interaction> {
    const triggerId = this.fake.issueTriggerId(this.userId);
    const response = await this.requests.slashCommand({
      ...this.actor,
      command: input.command,
      text: input.text ?? "",
      channelId: input.channel,
      channelName: this.fake.workspace.channels.get(input.channel)?.name ?? input.channel,
      triggerId,
      responseUrl: this.fake.responseUrl(),
    });
    return { response, triggerId };
  }

  /** Waits until the app opened (or pushed) a modal with this trigger. */
  openedModal(triggerId: string): Promise<FakeView> {
    return this.fake.waitFor(() => this.fake.views({ openedWithTrigger: triggerId })[0], {
      timeoutMs: this.timeoutMs,
      what: `a modal opened with trigger ${triggerId.slice(0, 16)}…`,
    });
  }

  /** Types into the modal's inputs: keys are block_ids (or unique action_ids). */
  fill(viewId: string, typed: Record<string, TypedValue>): void {
    this.fake.fillView(viewId, typed);
  }

  async submit(viewId: string, typed: Record<string, TypedValue> = {}): Promise<Submission> {
    if (Object.keys(typed).length > 0) this.fill(viewId, typed);
    const view = this.fake.view(viewId);
    if (view?.status !== "open") throw new Error(`View ${viewId} is not open; nothing to submit`);
    const response = await this.requests.viewSubmission({
      ...this.actor,
      view: this.fake.viewPayload(viewId),
      triggerId: this.fake.issueTriggerId(this.userId),
    });
    const outcome: ViewResponseOutcome =
      response.status === 200
        ? this.fake.applyViewResponse(viewId, response.body)
        : { outcome: "rejected", problems: [`the app answered HTTP ${response.status}`] };
    return { response, outcome, view };
  }

  async clickInView(
    viewId: string,
    click: { actionId: string; blockId?: string; value?: string },
  ): Promise<Interaction> {
    const view = this.fake.view(viewId);
    if (!view) throw new Error(`No view ${viewId}`);
    const { element, blockId } = findElement(view.definition.blocks, click.actionId, click.blockId);
    const triggerId = this.fake.issueTriggerId(this.userId);
    const response = await this.requests.blockActions({
      ...this.actor,
      triggerId,
      view: this.fake.viewPayload(viewId),
      actions: [actionFor(element, blockId, click.value)],
    });
    return { response, triggerId };
  }

  async clickInMessage(click: {
    channel: string;
    ts: string;
    actionId: string;
    blockId?: string;
    value?: string;
  }): Promise<Interaction> {
    const message = this.fake.message(click.channel, click.ts);
    if (!message) throw new Error(`No message ${click.ts} in ${click.channel}`);
    const latest = message.versions[message.versions.length - 1];
    const { element, blockId } = findElement(latest?.blocks, click.actionId, click.blockId);
    const triggerId = this.fake.issueTriggerId(this.userId);
    const response = await this.requests.blockActions({
      ...this.actor,
      triggerId,
      message: {
        channelId: click.channel,
        message: {
          type: "message",
          ts: message.ts,
          user: message.user,
          text: latest?.text ?? "",
          ...(latest?.blocks ? { blocks: latest.blocks } : {}),
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        },
      },
      responseUrl: this.fake.responseUrl(),
      actions: [actionFor(element, blockId, click.value)],
    });
    return { response, triggerId };
  }

  async shortcutOnMessage(input: { channel: string; ts: string; callbackId: string }): Promise<Interaction> {
    const message = this.fake.message(input.channel, input.ts);
    if (!message) throw new Error(`No message ${input.ts} in ${input.channel}`);
    const triggerId = this.fake.issueTriggerId(this.userId);
    const response = await this.requests.messageAction({
      ...this.actor,
      callbackId: input.callbackId,
      channelId: input.channel,
      channelName: this.fake.workspace.channels.get(input.channel)?.name ?? input.channel,
      message: {
        ts: message.ts,
        text: message.versions[message.versions.length - 1]?.text ?? message.text,
        user: message.user,
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      },
      triggerId,
      responseUrl: this.fake.responseUrl(),
    });
    return { response, triggerId };
  }
}

/**
 * Workflow Builder running a custom step: registers the execution (and its workflow token) with the
 * fake, then delivers `function_executed`. Re-deliver with `redeliver` (same event id, retry headers).
 */
export async function runWorkflowStep(
  fake: FakeSlack,
  requests: SlackRequests,
  input: { callbackId: string; inputs: Record<string, unknown>; title?: string },
) {
  const execution = fake.startFunctionExecution(input.callbackId, input.inputs);
  const delivery = {
    callbackId: input.callbackId,
    functionExecutionId: execution.functionExecutionId,
    workflowExecutionId: execution.workflowExecutionId,
    botAccessToken: execution.botAccessToken,
    inputs: input.inputs,
    botUserId: fake.botUserId,
    ...(input.title ? { title: input.title } : {}),
  };
  const response = await requests.functionExecuted(delivery);
  return {
    ...execution,
    response,
    eventId: response.eventId,
    redeliver: (num = 1) =>
      requests.functionExecuted({
        ...delivery,
        eventId: response.eventId,
        retry: { num, reason: "timeout" },
      }),
  };
}
