import { formatProblems, validateView } from "../blocks.ts";
import { slackId } from "../ids.ts";
import type { FakeView, FakeWorkspace, Json } from "../state.ts";
import { type Handler, type MethodContext, SlackApiError } from "./context.ts";

/** Slack keeps at most three views on a modal stack. */
const MAX_STACK = 3;

function viewArg(ctx: MethodContext, expected: "modal" | "home"): Json {
  const view = ctx.args.json("view");
  const problems = validateView(view);
  if (problems.length === 0 && (view as Json).type !== expected) {
    problems.push({ pointer: "/view/type", message: `must be ${expected} for this method` });
  }
  if (problems.length > 0) {
    throw new SlackApiError("invalid_arguments", {
      response_metadata: { messages: formatProblems(problems) },
    });
  }
  return view as Json;
}

/** Exchanges a trigger_id: unknown, already used, or older than Slack's 3 s are refused. */
function exchangeTrigger(ctx: MethodContext): { userId: string | undefined; id: string } {
  const id = ctx.args.optString("trigger_id") ?? ctx.args.optString("interactivity_pointer");
  if (id === undefined) {
    throw new SlackApiError("invalid_arguments", {
      response_metadata: { messages: ["[ERROR] missing required field: trigger_id"] },
    });
  }
  const trigger = ctx.ws.triggers.get(id);
  if (!trigger) throw new SlackApiError("invalid_trigger_id");
  if (trigger.usedAt !== undefined) throw new SlackApiError("exchanged_trigger_id");
  if (ctx.now - trigger.issuedAt > ctx.triggerTtlMs) throw new SlackApiError("expired_trigger_id");
  return { userId: trigger.userId, id };
}

function markUsed(ctx: MethodContext, id: string): void {
  const trigger = ctx.ws.triggers.get(id);
  if (trigger) trigger.usedAt = ctx.now;
}

/** Input values survive an update when the block_id and action_id are unchanged, as in Slack. */
function keptValues(view: FakeView, definition: Json): FakeView["values"] {
  const kept: FakeView["values"] = {};
  const blocks = Array.isArray(definition.blocks) ? (definition.blocks as Json[]) : [];
  for (const block of blocks) {
    const blockId = typeof block.block_id === "string" ? block.block_id : undefined;
    const element = block.element as Json | undefined;
    const actionId = typeof element?.action_id === "string" ? element.action_id : undefined;
    if (!blockId || !actionId) continue;
    const value = view.values[blockId]?.[actionId];
    if (value) kept[blockId] = { [actionId]: value };
  }
  return kept;
}

export function viewJson(ws: FakeWorkspace, v: FakeView): Json {
  const d = v.definition;
  return {
    id: v.id,
    team_id: v.teamId,
    type: v.type,
    blocks: d.blocks ?? [],
    private_metadata: d.private_metadata ?? "",
    callback_id: d.callback_id ?? "",
    state: { values: v.values },
    hash: v.hash,
    title: d.title,
    clear_on_close: d.clear_on_close ?? false,
    notify_on_close: d.notify_on_close ?? false,
    close: d.close ?? null,
    submit: d.submit ?? null,
    previous_view_id: v.previousViewId,
    root_view_id: v.rootViewId,
    app_id: v.appId,
    external_id: v.externalId,
    app_installed_team_id: ws.opts.teamId,
    bot_id: v.botId,
  };
}

function createView(
  ctx: MethodContext,
  definition: Json,
  opts: {
    type: "modal" | "home";
    userId: string;
    rootViewId?: string;
    previousViewId?: string;
    trigger?: string;
  },
): FakeView {
  const externalId = typeof definition.external_id === "string" ? definition.external_id : "";
  if (externalId) {
    for (const v of ctx.ws.views.values()) {
      if (v.externalId === externalId) throw new SlackApiError("duplicate_external_id");
    }
  }
  const id = slackId("V", 10);
  const view: FakeView = {
    id,
    teamId: ctx.ws.opts.teamId,
    appId: ctx.ws.opts.appId,
    botId: ctx.ws.opts.botId,
    userId: opts.userId,
    type: opts.type,
    definition,
    hash: ctx.ws.newViewHash(),
    rootViewId: opts.rootViewId ?? id,
    previousViewId: opts.previousViewId ?? null,
    externalId,
    values: {},
    status: "open",
    openedWithTrigger: opts.trigger,
    errors: undefined,
    versions: 1,
    updatedAt: ctx.now,
  };
  ctx.ws.views.set(id, view);
  return view;
}

export const open: Handler = (ctx) => {
  const trigger = exchangeTrigger(ctx);
  const definition = viewArg(ctx, "modal");
  const view = createView(ctx, definition, {
    type: "modal",
    userId: trigger.userId ?? "",
    trigger: trigger.id,
  });
  markUsed(ctx, trigger.id);
  return { view: viewJson(ctx.ws, view) };
};

/** The views on a modal stack, root first. */
export function stackOf(ws: FakeWorkspace, rootViewId: string): FakeView[] {
  return [...ws.views.values()].filter((v) => v.rootViewId === rootViewId && v.status === "open");
}

export const push: Handler = (ctx) => {
  const trigger = exchangeTrigger(ctx);
  const definition = viewArg(ctx, "modal");
  const open = [...ctx.ws.views.values()].filter(
    (v) => v.type === "modal" && v.status === "open" && v.userId === trigger.userId,
  );
  const top = open[open.length - 1];
  if (!top) throw new SlackApiError("not_found");
  if (stackOf(ctx.ws, top.rootViewId).length >= MAX_STACK) throw new SlackApiError("push_limit_reached");
  const view = createView(ctx, definition, {
    type: "modal",
    userId: top.userId,
    rootViewId: top.rootViewId,
    previousViewId: top.id,
    trigger: trigger.id,
  });
  markUsed(ctx, trigger.id);
  return { view: viewJson(ctx.ws, view) };
};

export const update: Handler = (ctx) => {
  const viewId = ctx.args.optString("view_id");
  const externalId = ctx.args.optString("external_id");
  if (viewId === undefined && externalId === undefined) {
    throw new SlackApiError("invalid_arguments", {
      response_metadata: { messages: ["[ERROR] one of view_id or external_id is required"] },
    });
  }
  const view = viewId
    ? ctx.ws.views.get(viewId)
    : [...ctx.ws.views.values()].find((v) => v.externalId === externalId);
  if (view?.status !== "open") throw new SlackApiError("not_found");
  const hash = ctx.args.optString("hash");
  if (hash !== undefined && hash !== view.hash) throw new SlackApiError("hash_conflict");
  const definition = viewArg(ctx, view.type);
  view.values = keptValues(view, definition);
  view.definition = definition;
  view.hash = ctx.ws.newViewHash();
  view.errors = undefined;
  view.versions += 1;
  view.updatedAt = ctx.now;
  return { view: viewJson(ctx.ws, view) };
};

export const publish: Handler = (ctx) => {
  const userId = ctx.args.string("user_id");
  if (!ctx.ws.users.has(userId)) throw new SlackApiError("not_found");
  const definition = viewArg(ctx, "home");
  const existing = [...ctx.ws.views.values()].find((v) => v.type === "home" && v.userId === userId);
  const hash = ctx.args.optString("hash");
  if (existing) {
    if (hash !== undefined && hash !== existing.hash) throw new SlackApiError("hash_conflict");
    existing.definition = definition;
    existing.hash = ctx.ws.newViewHash();
    existing.versions += 1;
    existing.updatedAt = ctx.now;
    return { view: viewJson(ctx.ws, existing) };
  }
  return { view: viewJson(ctx.ws, createView(ctx, definition, { type: "home", userId })) };
};
