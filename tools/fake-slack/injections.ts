/**
 * What a real workspace would turn into a notification or a link that the app never meant to send: `@channel`,
 * `@here`, `@everyone`, a user group or person mentioned, a link to a site the test did not expect. Found in every
 * message the app sent (each version, `text` and every mrkdwn text in its blocks), every ephemeral message,
 * response-URL answer and view, so a test that renders hostile input can assert that none got through.
 */
import type { FakeWorkspace, Json } from "./state.ts";

export interface Injection {
  /** Where it was seen, e.g. `chat.postMessage C0ORDERS1 1700000000.000100 (version 2)`. */
  where: string;
  /** `text`, or the JSON pointer of the mrkdwn text in the blocks. */
  field: string;
  /** The markup found, e.g. `<!channel>`. */
  found: string;
}

export interface InjectionOptions {
  /** People the app may mention (the requester, a workflow's recipient). */
  allowUsers?: Iterable<string>;
  /** User groups the app may mention. */
  allowUsergroups?: Iterable<string>;
  /** Hosts the app may link to (the supplier's tracking site, the workspace). */
  allowLinkHosts?: Iterable<string>;
}

/** `<…>` markup: a special mention, a person, a channel, a link. */
const MARKUP = /<([^<>]*)>/g;

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/** The injections in one mrkdwn text. */
export function injectionsIn(text: string, options: InjectionOptions = {}): string[] {
  const users = new Set(options.allowUsers ?? []);
  const groups = new Set(options.allowUsergroups ?? []);
  const hosts = new Set(options.allowLinkHosts ?? []);
  const found: string[] = [];
  for (const match of text.matchAll(MARKUP)) {
    const inner = match[1] ?? "";
    const target = inner.split("|")[0] ?? "";
    if (target.startsWith("!")) {
      // `<!date^…>` formats a date; every other special mention notifies people.
      if (target.startsWith("!date^")) continue;
      const group = /^!subteam\^([A-Z0-9]+)$/.exec(target)?.[1];
      if (group !== undefined && groups.has(group)) continue;
      found.push(match[0]);
    } else if (target.startsWith("@")) {
      if (!users.has(target.slice(1))) found.push(match[0]);
    } else if (!target.startsWith("#") && /^[a-z][a-z0-9+.-]*:/i.test(target)) {
      // A channel reference (`<#C…>`) notifies no one; a link is allowed only to the hosts given.
      const host = hostOf(target);
      if (host === null || !hosts.has(host)) found.push(match[0]);
    }
  }
  return found;
}

/** Every mrkdwn text in `value` (blocks, a view), with its JSON pointer. */
function mrkdwnTexts(value: unknown, pointer: string, out: Array<[string, string]>): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      mrkdwnTexts(item, `${pointer}/${i}`, out);
    });
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const object = value as Json;
  if (object.type === "mrkdwn" && typeof object.text === "string") out.push([`${pointer}/text`, object.text]);
  for (const [key, child] of Object.entries(object)) {
    if (typeof child === "object" && child !== null) mrkdwnTexts(child, `${pointer}/${key}`, out);
  }
}

interface Surface {
  where: string;
  /** A message's `text`: mrkdwn unless the app says `mrkdwn: false`, which the fake does not record. */
  text?: string | undefined;
  blocks?: unknown;
}

export function findInjections(
  ws: FakeWorkspace,
  responses: readonly { id: string; body: unknown }[],
  options: InjectionOptions = {},
): Injection[] {
  const surfaces: Surface[] = [];
  for (const [channel, messages] of ws.messages) {
    for (const m of messages) {
      if (!m.isBot) continue;
      m.versions.forEach((v, i) => {
        const version = m.versions.length > 1 ? ` (version ${i + 1})` : "";
        surfaces.push({ where: `message ${channel} ${m.ts}${version}`, text: v.text, blocks: v.blocks });
      });
    }
  }
  for (const e of ws.ephemerals) {
    surfaces.push({ where: `ephemeral ${e.channel} to ${e.user}`, text: e.text, blocks: e.blocks });
  }
  for (const r of responses) {
    const body = (typeof r.body === "object" && r.body !== null ? r.body : { text: String(r.body) }) as Json;
    const text = typeof body.text === "string" ? body.text : undefined;
    surfaces.push({ where: `response ${r.id}`, text, blocks: body.blocks });
  }
  for (const view of ws.views.values()) {
    surfaces.push({
      where: `${view.type} view ${view.id} of ${view.userId}`,
      blocks: view.definition.blocks,
    });
  }
  const found: Injection[] = [];
  for (const surface of surfaces) {
    const texts: Array<[string, string]> = [];
    if (surface.text !== undefined) texts.push(["text", surface.text]);
    mrkdwnTexts(surface.blocks, "/blocks", texts);
    for (const [field, text] of texts) {
      for (const markup of injectionsIn(text, options))
        found.push({ where: surface.where, field, found: markup });
    }
  }
  return found;
}
