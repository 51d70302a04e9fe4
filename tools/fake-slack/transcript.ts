import type { FakeMessage, FakeWorkspace, Json } from "./state.ts";

/**
 * A channel as a person would read it: each top-level message (time, who, text), its thread replies
 * indented beneath it, and the parent's final status line. The demo prints this; tests compare it.
 */

export interface TranscriptOptions {
  /** The block_id of the block holding a message's status line (falls back to the last context block). */
  statusBlockId?: string;
  /** Only threads whose parent was posted by the app (skips seeded ticket messages without replies). */
  onlyThreads?: boolean;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function time(ts: string): string {
  return new Date(Number(ts.split(".")[0]) * 1000).toISOString().slice(11, 19);
}

/** mrkdwn to plain reading text: links, mentions, channel references and dates (as their fallback) resolved. */
export function plainText(ws: FakeWorkspace, text: string): string {
  return text
    .replace(/<@([UW][A-Z0-9]+)>/g, (_, id: string) => `@${ws.users.get(id)?.name ?? id}`)
    .replace(
      /<#([CGD][A-Z0-9]+)(?:\|([^>]*))?>/g,
      (_, id: string, name?: string) => `#${name || ws.channels.get(id)?.name || id}`,
    )
    .replace(/<!subteam\^([A-Z0-9]+)(?:\|([^>]*))?>/g, (_, id: string, name?: string) => name || `@${id}`)
    .replace(/<!date\^[^|>]*\|([^>]*)>/g, "$1")
    .replace(/<([^|>]+)\|([^>]+)>/g, "$2 ($1)")
    .replace(/<(https?:[^>]+)>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

function textOf(v: unknown): string {
  return isObject(v) && typeof v.text === "string" ? v.text : "";
}

function blockLines(block: Json): string[] {
  switch (block.type) {
    case "header":
      return [textOf(block.text)];
    case "section": {
      const lines = textOf(block.text) ? [textOf(block.text)] : [];
      if (Array.isArray(block.fields)) lines.push(block.fields.map(textOf).join("  |  "));
      return lines;
    }
    case "context":
      return Array.isArray(block.elements) ? [block.elements.map(textOf).filter(Boolean).join(" · ")] : [];
    case "actions":
      return Array.isArray(block.elements)
        ? [
            block.elements
              .map((e) => `[${textOf(isObject(e) ? e.text : undefined) || String((e as Json).type)}]`)
              .join(" "),
          ]
        : [];
    case "divider":
      return ["―――"];
    case "markdown":
      return typeof block.text === "string" ? [block.text] : [];
    default:
      return [];
  }
}

function current(m: FakeMessage): { text: string; blocks: unknown[] | undefined } {
  const v = m.versions[m.versions.length - 1];
  return { text: v?.text ?? m.text, blocks: v?.blocks };
}

/** The message body as lines: its blocks when it has them, else its text. */
export function messageLines(ws: FakeWorkspace, m: FakeMessage): string[] {
  const { text, blocks } = current(m);
  const lines = blocks?.length ? blocks.filter(isObject).flatMap((b) => blockLines(b)) : [text];
  return lines.flatMap((l) => plainText(ws, l).split("\n")).filter((l) => l.trim() !== "");
}

/** The message's status line: the block with `statusBlockId`, else its last context block. */
export function statusLine(ws: FakeWorkspace, m: FakeMessage, statusBlockId = "status"): string | undefined {
  const blocks = (current(m).blocks ?? []).filter(isObject);
  const block =
    blocks.find((b) => b.block_id === statusBlockId) ?? blocks.filter((b) => b.type === "context").pop();
  if (!block) return undefined;
  const line = blockLines(block).join(" ");
  return line ? plainText(ws, line) : undefined;
}

function who(ws: FakeWorkspace, m: FakeMessage): string {
  if (m.isBot) return "Order Desk";
  const user = ws.users.get(m.user);
  return user?.realName ?? user?.name ?? m.user;
}

export function renderTranscript(ws: FakeWorkspace, channelId: string, opts: TranscriptOptions = {}): string {
  const channel = ws.channels.get(channelId);
  const messages = ws.messages.get(channelId) ?? [];
  const title = channel?.isIm
    ? `DM with ${ws.users.get(channel.user ?? "")?.name ?? channel.user}`
    : `#${channel?.name ?? channelId}`;
  const out: string[] = [`=== ${title} (${channelId}) ===`];
  for (const parent of messages.filter((m) => m.threadTs === undefined)) {
    if (opts.onlyThreads && parent.replies.length === 0 && !parent.isBot) continue;
    const [first = "", ...rest] = messageLines(ws, parent);
    const edited = parent.versions.length > 1 ? ` (edited ${parent.versions.length - 1}×)` : "";
    out.push(`${time(parent.ts)}  ${who(ws, parent)}: ${first}${edited}`);
    for (const line of rest) out.push(`          ${line}`);
    for (const ts of parent.replies) {
      const reply = ws.findMessage(channelId, ts);
      if (!reply) continue;
      const [r1 = "", ...rRest] = messageLines(ws, reply);
      out.push(
        `    ↳ ${time(reply.ts)}  ${who(ws, reply)}: ${r1}${reply.replyBroadcast ? "  [also sent to channel]" : ""}`,
      );
      for (const line of rRest) out.push(`              ${line}`);
    }
    const status = statusLine(ws, parent, opts.statusBlockId);
    if (status) out.push(`    status: ${status}`);
    out.push("");
  }
  return out.join("\n");
}
