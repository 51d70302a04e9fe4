import type { FakeWorkspace, Json } from "../state.ts";

/** An `{ ok: false, error }` answer; `extra` adds Slack's details (`errors`, `response_metadata`, `needed`). */
export class SlackApiError extends Error {
  constructor(
    readonly error: string,
    readonly extra: Json = {},
  ) {
    super(error);
    this.name = "SlackApiError";
  }
}

/**
 * A method's arguments as received. Slack's SDKs send form bodies where objects arrive as JSON strings
 * (`blocks=[...]`, `view={...}`) and booleans/numbers as text; JSON bodies carry real values. Handlers
 * read through this so both encodings behave the same, as they do on Slack.
 */
export class Args {
  constructor(readonly raw: Json) {}

  has(name: string): boolean {
    return this.raw[name] !== undefined && this.raw[name] !== "";
  }

  optString(name: string): string | undefined {
    const v = this.raw[name];
    if (v === undefined || v === null || v === "") return undefined;
    return typeof v === "string" ? v : String(v);
  }

  string(name: string): string {
    const v = this.optString(name);
    if (v === undefined)
      throw new SlackApiError("invalid_arguments", {
        response_metadata: { messages: [`[ERROR] missing required field: ${name}`] },
      });
    return v;
  }

  bool(name: string): boolean {
    const v = this.raw[name];
    return v === true || v === "true" || v === "1" || v === 1;
  }

  /** An object/array argument, parsed from JSON text when the body was a form. */
  json(name: string): unknown {
    const v = this.raw[name];
    if (typeof v !== "string") return v;
    try {
      return JSON.parse(v);
    } catch {
      throw new SlackApiError(name === "blocks" ? "invalid_blocks_format" : "invalid_json", {
        response_metadata: { messages: [`[ERROR] ${name} is not valid JSON`] },
      });
    }
  }
}

export interface AuthInfo {
  /** `app`: an app-level token (xapp-…), good only for `apps.connections.open`. */
  kind: "bot" | "function" | "app";
  /** For a workflow token: the execution it belongs to. */
  executionId?: string;
}

export interface MethodContext {
  args: Args;
  ws: FakeWorkspace;
  auth: AuthInfo;
  scopes: ReadonlySet<string>;
  now: number;
  /** How long a trigger_id can be exchanged after it was issued (Slack: 3 s). */
  triggerTtlMs: number;
}

export type Handler = (ctx: MethodContext) => Json;

export function requireScope(ctx: MethodContext, ...anyOf: string[]): void {
  if (anyOf.some((s) => ctx.scopes.has(s))) return;
  throw new SlackApiError("missing_scope", { needed: anyOf.join(","), provided: [...ctx.scopes].join(",") });
}
