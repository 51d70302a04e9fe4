/**
 * External document numbers from the customer file's pattern (`{ticket}-{seq}` by default). The counter lives in
 * the database (gapless, per rendered prefix) and is taken inside the transaction that stores the order, so two
 * agents ordering for the same ticket get ABC-123-1 and ABC-123-2, and a rolled-back submit gives its number back.
 */

import type { Queryable } from "../store/db.ts";
import { nextValues } from "../store/repositories/sequences.ts";

/**
 * A document number with its counter left open: the literal text around each counter placeholder (`parts`,
 * one more than `pads`) and each placeholder's width. Filled as `parts[0] + pad(seq, pads[0]) + parts[1] …`,
 * where `pad` is `String(seq).padStart(width, "0")` (never truncated).
 */
export interface DocumentNumberTemplate {
  /** The counter's key: numbers are gapless per key. */
  counter: string;
  parts: string[];
  pads: number[];
}

export interface EdnContext {
  ticket: string;
  profile: string;
  now: Date;
}

/**
 * What a typed order number (`externalDocumentNumber.allowManual`) may hold: it is sent to the supplier and shown in
 * every message about the order, so only characters no markup or link syntax uses.
 */
export const TYPED_EDN = /^[A-Za-z0-9._/-]+$/;
/** `TYPED_EDN` in words, for the modal's hint and its inline error. */
export const TYPED_EDN_CHARACTERS = "letters A–Z, digits and - _ . /";

/** Keeps what document numbers usually allow: `#123` → `123`, spaces and punctuation dropped. */
export function ticketToken(ticket: string): string {
  return ticket.replace(/[^A-Za-z0-9._/-]/g, "");
}

function profileToken(profile: string): string {
  return profile.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

function dateToken(now: Date): string {
  return now.toISOString().slice(0, 10).replace(/-/g, "");
}

const SEQ = /\{seq(?::(\d))?\}/g;

/**
 * The pattern with everything but the counter filled in: the counter's key. A token is only computed when the
 * pattern uses it (this runs on every modal submit, before Slack's answer).
 */
function ednPrefix(pattern: string, ctx: EdnContext): string {
  let prefix = pattern;
  if (prefix.includes("{ticket}")) prefix = prefix.replaceAll("{ticket}", ticketToken(ctx.ticket));
  if (prefix.includes("{profile}")) prefix = prefix.replaceAll("{profile}", profileToken(ctx.profile));
  if (prefix.includes("{date}")) prefix = prefix.replaceAll("{date}", dateToken(ctx.now));
  return prefix;
}

/**
 * The number with its counter left open, split around each `{seq}`/`{seq:N}`; the counter's key is the rendered
 * prefix. `fillEdn` fills it (the only place a number is rendered).
 */
export function ednTemplate(pattern: string, ctx: EdnContext): DocumentNumberTemplate {
  const prefix = ednPrefix(pattern, ctx);
  const parts: string[] = [];
  const pads: number[] = [];
  let from = 0;
  for (const match of prefix.matchAll(SEQ)) {
    parts.push(prefix.slice(from, match.index));
    pads.push(match[1] ? Number(match[1]) : 0);
    from = match.index + match[0].length;
  }
  parts.push(prefix.slice(from));
  return { counter: `edn:${prefix}`, parts, pads };
}

export function fillEdn(template: DocumentNumberTemplate, seq: number): string {
  let edn = template.parts[0] as string;
  for (const [i, pad] of template.pads.entries()) {
    edn += String(seq).padStart(pad, "0") + (template.parts[i + 1] as string);
  }
  return edn;
}

export function renderEdn(pattern: string, ctx: EdnContext, seq: number): string {
  return fillEdn(ednTemplate(pattern, ctx), seq);
}

/** Takes the next number for this prefix; call inside the transaction that inserts the order. */
export async function nextEdn(q: Queryable, pattern: string, ctx: EdnContext): Promise<string> {
  const template = ednTemplate(pattern, ctx);
  const next = await nextValues(q, new Map([[template.counter, 1]]));
  return fillEdn(template, next.get(template.counter) as number);
}
